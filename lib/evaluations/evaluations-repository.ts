import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type AccountEvent, accountEventPut } from '#events/account-events.js';
import { UnavailableError } from '#platform/errors.js';
import { newestFirstPage } from '#platform/table/index-page.js';
import { entityOf } from '#platform/table/items.js';
import { keys } from '#platform/table/keys.js';
import { queryAll } from '#platform/table/queries.js';
import { cancellationReasons, defaultTable, type TableRef } from '#platform/table/table.js';
import { isConflictOnly, type TransactItem, transactWrite } from '#platform/table/transactions.js';
import { equalityFilter, setFields } from '#platform/table/update-expressions.js';
import {
  type Attempt,
  type AttemptOutcome,
  EVALUATION_ID,
  type Evaluation,
  type EvaluationCase,
  type EvaluationEnd,
  type EvaluationResults,
  type EvaluationStatus,
  type EvaluationWhole,
  type RecordResult,
  type RunAttemptRef,
} from './model.js';

/**
 * Evaluations in the table (docs/data-model.md): one partition
 * `EVALUATION#<id>` holds the head (gsi1: the account's evaluations, newest
 * first), one item per case and one per filled attempt slot; beside it, one
 * item per recorded run `RUNATTEMPT#<run id>` says where the run is recorded.
 *
 * Every rule that must hold under concurrency is a condition of one
 * transaction: a slot is put once (so one run per slot for ever: two
 * different runs recorded at once give one success and one refusal), with
 * the run's lookup item (so a run fills one slot of an evaluation at most)
 * and the head's counter, on condition that the evaluation is running; an
 * outcome is recorded once per slot, with the head's `ended_attempts`; the
 * evaluation leaves `running` once, with its event.
 */

/** Collisions with concurrent transactions on the same items in a row before 503 (each is tried again at once, after a short pause). */
const CONFLICT_ATTEMPTS = 6;

/** Results as stored, in the order the API shows their fields (a stored map keeps none). */
const resultsOf = (stored: EvaluationResults | null | undefined): EvaluationResults | null =>
  stored
    ? {
        per_case: stored.per_case.map(({ case_id, attempts, passed, pass_rate, run_statuses }) => ({ case_id, attempts, passed, pass_rate, run_statuses })),
        pass_rate: stored.pass_rate,
      }
    : null;

const toEvaluation = (item: Record<string, unknown>): Evaluation => {
  // The defaults are for head items written before the field existed, or without it yet.
  const stored = entityOf<Evaluation>(item, [], { run: false, recorded_attempts: 0, ended_attempts: 0, failure: null, completed_at: null });
  return { ...stored, results: resultsOf(stored.results) };
};

const toCase = (item: Record<string, unknown>): EvaluationCase => {
  const { case_id, ...stored } = entityOf<Omit<EvaluationCase, 'id'> & { case_id: string }>(item, ['evaluation_id'], { expected: null });
  return { id: case_id, ...stored };
};

/** The outcome's fields exist only once it is known. */
const toAttempt = (item: Record<string, unknown>): Attempt =>
  entityOf<Attempt>(item, ['evaluation_id'], { run_status: null, passed: null, check_error: null, ended_at: null });

export function evaluationsRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;

  /**
   * Sends a transaction: 'ok', or the cancellation reason of each item when
   * a condition refused it. A collision with a concurrent transaction is
   * tried again (CONFLICT_ATTEMPTS times, then 503).
   */
  async function transact(items: TransactItem[]): Promise<'ok' | string[]> {
    try {
      await transactWrite(db, { TransactItems: items }, CONFLICT_ATTEMPTS);
      return 'ok';
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons) throw error;
      const codes = items.map((_, i) => reasons[i]?.Code ?? 'None');
      if (codes.includes('ConditionalCheckFailed')) return codes;
      if (isConflictOnly(error)) throw new UnavailableError('The evaluation is changing too fast to record this now; retry.');
      throw error;
    }
  }

  async function attempt(evaluationId: string, position: number, attemptIndex: number): Promise<Attempt | undefined> {
    const { Item } = await db.send(
      new GetCommand({ TableName: tableName, Key: keys.evaluationAttempt(evaluationId, position, attemptIndex), ConsistentRead: true }),
    );
    return Item ? toAttempt(Item) : undefined;
  }

  const outcomeFields = (outcome: AttemptOutcome, at: string) => ({
    run_status: outcome.run_status,
    passed: outcome.passed,
    check_error: outcome.check_error,
    ended_at: at,
  });

  return {
    /** Puts the head and every case in one transaction: an evaluation is visible whole or not at all. */
    async create(evaluation: Evaluation, cases: readonly EvaluationCase[]): Promise<void> {
      const result = await transact([
        {
          Put: {
            TableName: tableName,
            Item: {
              ...keys.evaluation(evaluation.id),
              ...keys.evaluationIndex(evaluation.account_id, evaluation.created_at, evaluation.id),
              entity: 'evaluation',
              ...evaluation,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        ...cases.map(
          (c): TransactItem => ({
            Put: {
              TableName: tableName,
              Item: {
                ...keys.evaluationCase(evaluation.id, c.position),
                entity: 'evaluation_case',
                evaluation_id: evaluation.id,
                case_id: c.id,
                position: c.position,
                input: c.input,
                expected: c.expected,
              },
            },
          }),
        ),
      ]);
      if (result !== 'ok') throw new Error(`Evaluation ${evaluation.id} exists already.`);
    },

    /** The head, if it is the account's; undefined for a malformed, unknown or other account's id alike. */
    async get(accountId: string, evaluationId: string): Promise<Evaluation | undefined> {
      if (!EVALUATION_ID.test(evaluationId)) return undefined;
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.evaluation(evaluationId), ConsistentRead: true }));
      return Item?.account_id === accountId ? toEvaluation(Item) : undefined;
    },

    /** The head, its cases in order and its filled slots in slot order (one consistent Query), if it is the account's. */
    async whole(accountId: string, evaluationId: string): Promise<EvaluationWhole | undefined> {
      if (!EVALUATION_ID.test(evaluationId)) return undefined;
      const items = await queryAll(db, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.evaluationPartition(evaluationId) },
        ConsistentRead: true,
      });
      const head = items.find((item) => item.entity === 'evaluation');
      if (head?.account_id !== accountId) return undefined;
      return {
        evaluation: toEvaluation(head),
        cases: items.filter((item) => item.entity === 'evaluation_case').map(toCase),
        attempts: items.filter((item) => item.entity === 'evaluation_attempt').map(toAttempt),
      };
    },

    async caseAt(evaluationId: string, position: number): Promise<EvaluationCase | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: keys.evaluationCase(evaluationId, position), ConsistentRead: true }));
      return Item ? toCase(Item) : undefined;
    },

    attempt,

    /**
     * Fills a slot with a run, in one transaction: the slot (free), the
     * run's lookup item (the run in no other slot of the evaluation), and
     * the head's counters (`ended_attempts` too when the outcome is known
     * already) on condition that the evaluation is running.
     */
    async record(evaluation: Pick<Evaluation, 'id' | 'account_id'>, filled: Attempt): Promise<RecordResult> {
      const ended = filled.ended_at !== null;
      const codes = await transact([
        {
          Put: {
            TableName: tableName,
            Item: {
              ...keys.evaluationAttempt(evaluation.id, filled.position, filled.attempt_index),
              entity: 'evaluation_attempt',
              evaluation_id: evaluation.id,
              case_id: filled.case_id,
              position: filled.position,
              attempt_index: filled.attempt_index,
              run_id: filled.run_id,
              recorded_at: filled.recorded_at,
              // The outcome's fields exist only once it is known: recording it is conditioned on their absence.
              ...(ended ? { run_status: filled.run_status, passed: filled.passed, check_error: filled.check_error, ended_at: filled.ended_at } : {}),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Put: {
            TableName: tableName,
            Item: {
              ...keys.runAttempt(filled.run_id, evaluation.id),
              entity: 'run_attempt',
              run_id: filled.run_id,
              evaluation_id: evaluation.id,
              account_id: evaluation.account_id,
              position: filled.position,
              attempt_index: filled.attempt_index,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        {
          Update: {
            TableName: tableName,
            Key: keys.evaluation(evaluation.id),
            UpdateExpression: ended ? 'ADD recorded_attempts :one, ended_attempts :one' : 'ADD recorded_attempts :one',
            ConditionExpression: '#status = :running',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':one': 1, ':running': 'running' },
          },
        },
      ]);
      if (codes === 'ok') return { kind: 'recorded' };
      const [slot, lookup, head] = codes;
      if (head === 'ConditionalCheckFailed') return { kind: 'not_running' };
      if (slot === 'ConditionalCheckFailed') {
        const taken = await attempt(evaluation.id, filled.position, filled.attempt_index);
        if (!taken) throw new Error(`The slot ${filled.position}/${filled.attempt_index} of ${evaluation.id} was refused but is empty.`);
        return { kind: 'taken', attempt: taken };
      }
      if (lookup === 'ConditionalCheckFailed') return { kind: 'run_elsewhere' };
      throw new Error(`Recording in ${evaluation.id} was refused for no condition it states: ${codes.join(', ')}.`);
    },

    /**
     * Records a slot's outcome once: the slot on condition that it holds
     * `runId` and has none yet, and the head's `ended_attempts` in the same
     * transaction. False when it was recorded already.
     */
    async recordOutcome(evaluationId: string, position: number, attemptIndex: number, runId: string, outcome: AttemptOutcome, at: string): Promise<boolean> {
      const { update, names, values } = setFields(outcomeFields(outcome, at));
      const codes = await transact([
        {
          Update: {
            TableName: tableName,
            Key: keys.evaluationAttempt(evaluationId, position, attemptIndex),
            UpdateExpression: update,
            ConditionExpression: 'run_id = :run AND attribute_not_exists(ended_at)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ...values, ':run': runId },
          },
        },
        {
          Update: {
            TableName: tableName,
            Key: keys.evaluation(evaluationId),
            UpdateExpression: 'ADD ended_attempts :one',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':one': 1 },
          },
        },
      ]);
      return codes === 'ok';
    },

    /** Every slot a run is recorded in (one per evaluation that recorded it). */
    async runAttempts(runId: string): Promise<RunAttemptRef[]> {
      const { Items } = await db.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.runAttemptPartition(runId) },
          ConsistentRead: true,
        }),
      );
      return (Items ?? []).map((item) => entityOf<RunAttemptRef>(item, ['run_id']));
    },

    /**
     * Moves the evaluation out of `running`, once: on condition that it is
     * still running, with its event (the account's event record) in the
     * same transaction. False when it had left `running` already.
     */
    async finish(evaluation: Pick<Evaluation, 'id' | 'account_id'>, end: EvaluationEnd, event?: AccountEvent): Promise<boolean> {
      const { update, names, values } = setFields({ status: end.status, completed_at: end.completed_at, results: end.results, failure: end.failure });
      const codes = await transact([
        {
          Update: {
            TableName: tableName,
            Key: keys.evaluation(evaluation.id),
            UpdateExpression: update,
            ConditionExpression: '#status = :running',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ...values, ':running': 'running' },
          },
        },
        ...(event ? [accountEventPut(table, evaluation.account_id, event, new Date(end.completed_at))] : []),
      ]);
      return codes === 'ok';
    },

    /** The account's evaluations, newest first, optionally by status. */
    async list(accountId: string, filters: { status?: EvaluationStatus }, options: { limit: number; after?: { gsi1sk: string; pk: string; sk: string } }) {
      const page = await newestFirstPage(db, tableName, keys.evaluationIndexPartition(accountId), equalityFilter(filters), options);
      return { evaluations: page.items.map(toEvaluation), next: page.next };
    },
  };
}

export type EvaluationsRepo = ReturnType<typeof evaluationsRepo>;
