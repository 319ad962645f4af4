import { keys } from '#platform/table/keys.js';

/**
 * The writes the runs feature makes to a machine, as items of its own
 * transactions (one run at a time per machine, in order: lib/runs). A
 * machine's `current_run_id` is the run that holds it (running or waiting
 * for a person) and `queued_runs` counts the runs waiting for it. Each
 * write carries the condition that keeps those two true under concurrency.
 */

const FREE = '(attribute_not_exists(current_run_id) OR attribute_type(current_run_id, :null_type))';

type Update = {
  TableName: string;
  Key: Record<string, string>;
  UpdateExpression: string;
  ConditionExpression: string;
  ExpressionAttributeValues: Record<string, unknown>;
};

export const machineOccupancy = (tableName: string) => ({
  /** A run takes an idle machine nobody waits for (it skips the queue because there is none). */
  takeIdle: (accountId: string, machineId: string, runId: string): Update => ({
    TableName: tableName,
    Key: keys.machine(accountId, machineId),
    UpdateExpression: 'SET current_run_id = :run',
    ConditionExpression: `attribute_exists(pk) AND ${FREE} AND (attribute_not_exists(queued_runs) OR queued_runs <= :zero)`,
    ExpressionAttributeValues: { ':run': runId, ':null_type': 'NULL', ':zero': 0 },
  }),
  /**
   * A run joins the queue of a machine that someone holds or others wait
   * for: whoever holds it hands it on when it ends, so the run is started.
   */
  join: (accountId: string, machineId: string): Update => ({
    TableName: tableName,
    Key: keys.machine(accountId, machineId),
    UpdateExpression: 'ADD queued_runs :one',
    ConditionExpression: `attribute_exists(pk) AND (NOT ${FREE} OR queued_runs > :zero)`,
    ExpressionAttributeValues: { ':one': 1, ':null_type': 'NULL', ':zero': 0 },
  }),
  /** The head of the queue takes the free machine. */
  takeFromQueue: (accountId: string, machineId: string, runId: string): Update => ({
    TableName: tableName,
    Key: keys.machine(accountId, machineId),
    UpdateExpression: 'SET current_run_id = :run ADD queued_runs :minus_one',
    ConditionExpression: `attribute_exists(pk) AND ${FREE} AND queued_runs > :zero`,
    ExpressionAttributeValues: { ':run': runId, ':minus_one': -1, ':null_type': 'NULL', ':zero': 0 },
  }),
  /** A queued run leaves the queue (cancelled). */
  leave: (accountId: string, machineId: string): Update => ({
    TableName: tableName,
    Key: keys.machine(accountId, machineId),
    UpdateExpression: 'ADD queued_runs :minus_one',
    ConditionExpression: 'attribute_exists(pk) AND queued_runs > :zero',
    ExpressionAttributeValues: { ':minus_one': -1, ':zero': 0 },
  }),
  /** The run that holds the machine lets it go (it ended). */
  release: (accountId: string, machineId: string, runId: string): Update => ({
    TableName: tableName,
    Key: keys.machine(accountId, machineId),
    UpdateExpression: 'SET current_run_id = :null',
    ConditionExpression: 'current_run_id = :run',
    ExpressionAttributeValues: { ':run': runId, ':null': null },
  }),
});
