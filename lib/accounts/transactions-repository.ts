import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { NotFoundError } from '#platform/errors.js';
import { keys } from '#platform/table/keys.js';
import { defaultTable, isConditionFailure, nowIso, type TableRef } from '#platform/table/table.js';

export type TransactionType = 'credit' | 'debit' | 'refund';
export type TransactionStatus = 'pending' | 'completed' | 'failed';

export interface BillingTransaction {
  id: string;
  user_id: string;
  amount: number;
  currency: string;
  type: TransactionType;
  status: TransactionStatus;
  description: string | null;
  metadata: Record<string, unknown> | null;
  processor_payment_intent_id: string | null;
  processor_charge_id: string | null;
  created_at: string;
  updated_at: string;
}

export function transactionsRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;
  return {
    /**
     * Records a completed credit and raises the balance in one transaction,
     * so the ledger and the balance never disagree.
     */
    async credit(input: { id: string; accountId: string; amountMicroUsd: number; description: string | null; metadata?: Record<string, unknown> }) {
      const now = nowIso();
      const txn: BillingTransaction = {
        id: input.id,
        user_id: input.accountId,
        amount: input.amountMicroUsd,
        currency: 'USD',
        type: 'credit',
        status: 'completed',
        description: input.description,
        metadata: input.metadata ?? null,
        processor_payment_intent_id: null,
        processor_charge_id: null,
        created_at: now,
        updated_at: now,
      };
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: tableName,
                  Key: keys.account(input.accountId),
                  UpdateExpression: 'ADD balance_micro_usd :amount SET updated_at = :now',
                  ConditionExpression: 'attribute_exists(pk)',
                  ExpressionAttributeValues: { ':amount': input.amountMicroUsd, ':now': now },
                },
              },
              {
                Put: {
                  TableName: tableName,
                  Item: { ...keys.transaction(input.accountId, now, input.id), entity: 'transaction', ...txn },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
            ],
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) throw new NotFoundError(`No account ${input.accountId}.`);
        throw error;
      }
      return txn;
    },
  };
}

export type TransactionsRepo = ReturnType<typeof transactionsRepo>;
