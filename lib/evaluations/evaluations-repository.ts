import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type AccountEvent, accountEventPut } from '#events/account-events.js';
import { UnavailableError } from '#platform/errors.js';
import { newestFirstPage } from '#platform/table/index-page.js';
import { keys } from '#platform/table/keys.js';
import { queryAll } from '#platform/table/queries.js';
import { cancellationReasons, defaultTable, type TableRef } from '#platform/table/table.js';
import { isConflictOnly, type TransactItem, transactWrite } from '#platform/table/transactions.js';
import { equalityFilter } from '#platform/table/update-expressions.js';
import {
  type Attempt,
  type AttemptOutcome,
  EVALUATION_ID,
  type Evaluation,
  type EvaluationCase,
  type EvaluationFailure,
  type EvaluationResults,
  type EvaluationStatus,
  type EvaluationWhole,
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

export type RecordResult =
  | { kind: 'recorded' }
  /** The slot holds a run already (maybe this one). */
  | { kind: 'taken'; attempt: Attempt }
  /** The run is recorded in another slot of this evaluation. */
  | { kind: 'run_elsewhere' }
  /** The evaluation is not running (any more). */
  | { kind: 'not_running' };

/** Where a run is recorded: one evaluation's slot. */
export interface RunAttemptRef {
  evaluation_id: string;
  account_id: string;
  position: number;
  attempt_index: number;
}

export interface EvaluationEnd {
  status: Exclude<EvaluationStatus, 'running'>;
  completed_at: string;
  results?: EvaluationResults;
  failure?: EvaluationFailure;
}

/** Results as stored, in the order the API shows their fields (a stored map keeps none). */
const resultsOf = (stored: EvaluationResults | null | undefined): EvaluationResults | null =>
  stored
    ? {
        per_case: stored.per_case.map(({ case_id, attempts, passed, pass_rate, run_statuses }) => ({ case_id, attempts, passed, pass_rate, run_statuses })),
        pass_rate: stored.pass_rate,
      }
    : null;

const toEvaluation = (item: Record<string, unknown>): Evaluation => ({
  id: item.id as string,
  account_id: item.account_id as string,
  name: item.name as string,
  status: item.status as EvaluationStatus,
  harness_id: item.harness_id as string,
  machine_id: item.machine_id as string,
  attempts_per_case: Number(item.attempts_per_case),
  run: item.run === true,
  case_ids: item.case_ids as string[],
  recorded_attempts: Number(item.recorded_attempts ?? 0),
  ended_attempts: Number(item.ended_attempts ?? 0),
  results: resultsOf(item.results as EvaluationResults | null | undefined),
  failure: (item.failure as EvaluationFailure | undefined) ?? null,
  created_at: item.created_at as string,
  completed_at: (item.completed_at as string | undefined) ?? null,
});

const toCase = (item: Record<string, unknown>): EvaluationCase => ({
  id: item.case_id as string,
  position: Number(item.position),
  input: item.input as EvaluationCase['input'],
  expected: (item.expected as EvaluationCase['expected'] | undefined) ?? null,
});

const toAttempt = (item: Record<string, unknown>): Attempt => ({
  case_id: item.case_id as string,
  position: Number(item.position),
  attempt_index: Number(item.attempt_index),
  run_id: item.run_id as string,
  recorded_at: item.recorded_at as string,
  run_status: (item.run_status as Attempt['run_status'] | undefined) ?? null,
  passed: (item.passed as boolean | null | undefined) ?? null,
  check_error: (item.check_error as string | null | undefined) ?? null,
  ended_at: (item.ended_at as string | undefined) ?? null,
});

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
      const fields = outcomeFields(outcome, at);
      const codes = await transact([
        {
          Update: {
            TableName: tableName,
            Key: keys.evaluationAttempt(evaluationId, position, attemptIndex),
            UpdateExpression: 'SET run_status = :run_status, passed = :passed, check_error = :check_error, ended_at = :ended_at',
            ConditionExpression: 'run_id = :run AND attribute_not_exists(ended_at)',
            ExpressionAttributeValues: {
              ':run_status': fields.run_status,
              ':passed': fields.passed,
              ':check_error': fields.check_error,
              ':ended_at': fields.ended_at,
              ':run': runId,
            },
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
      return (Items ?? []).map((item) => ({
        evaluation_id: item.evaluation_id as string,
        account_id: item.account_id as string,
        position: Number(item.position),
        attempt_index: Number(item.attempt_index),
      }));
    },

    /**
     * Moves the evaluation out of `running`, once: on condition that it is
     * still running, with its event (the account's event record) in the
     * same transaction. False when it had left `running` already.
     */
    async finish(evaluation: Pick<Evaluation, 'id' | 'account_id'>, end: EvaluationEnd, event?: AccountEvent): Promise<boolean> {
      const set: Record<string, unknown> = { status: end.status, completed_at: end.completed_at };
      if (end.results) set.results = end.results;
      if (end.failure) set.failure = end.failure;
      const names = Object.fromEntries(Object.keys(set).map((field) => [`#${field}`, field]));
      const values = Object.fromEntries(Object.entries(set).map(([field, value]) => [`:${field}`, value]));
      const codes = await transact([
        {
          Update: {
            TableName: tableName,
            Key: keys.evaluation(evaluation.id),
            UpdateExpression: `SET ${Object.keys(set)
              .map((field) => `#${field} = :${field}`)
              .join(', ')}`,
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
