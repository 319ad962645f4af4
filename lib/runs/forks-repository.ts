import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { eventPageItems, eventsFrom, type LoggedEvent } from '#events/pages.js';
import { batchPut } from '#platform/table/batch.js';
import { keys } from '#platform/table/keys.js';
import { queryAll } from '#platform/table/queries.js';
import { defaultTable, type TableRef } from '#platform/table/table.js';
import { runEventLog } from './events.js';
import type { RunEventData } from './model.js';
import { runsRepo } from './runs-repository.js';
import type { ResultStep, TurnStep } from './steps.js';

/**
 * The table side of forks (./fork-run.ts): the source's events up to the
 * fork point, and what a fork reuses written under its own id before the
 * run item exists (its first event pages, from seq 1, and copies of the
 * reused steps, as the run's own items: its log and its steps are whole in
 * its partition, however many forks deep). They are plain puts, not a
 * transaction: a conversation can hold more steps than a transaction takes.
 * Until the run's creation commits nobody reads them (the run is not found),
 * and a creation that is refused deletes them (`discard`).
 */
export function forksRepo(table: TableRef = defaultTable()) {
  const { db, tableName } = table;
  const runs = runsRepo(table);

  return {
    /** The run's events that are still kept, from seq 1 up to `toSeq`, in order. */
    eventsThrough: (runId: string, toSeq: number): Promise<LoggedEvent<RunEventData>[]> => eventsFrom<RunEventData>(runEventLog(table, runId), 1, { toSeq }),

    /** Puts a fork's first events (seq 1, 2, …) and its reused steps under `runId`. Safe to repeat. */
    async seed(runId: string, events: readonly RunEventData[], steps: ReadonlyArray<TurnStep | ResultStep>): Promise<void> {
      const pages = events.length ? eventPageItems(runEventLog(table, runId), 1, events) : [];
      const copies = steps.map((step) => runs.stepPut(runId, { ...step }).Put!.Item as Record<string, unknown>);
      await batchPut(db, tableName, [...pages, ...copies]);
    },

    /** Deletes every item under a run id whose run item was never put (what `seed` wrote for a creation that was refused). */
    async discard(runId: string): Promise<void> {
      const run = keys.run(runId);
      const items = await queryAll(db, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': run.pk },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
      });
      // The run item is there after all (a creation that committed but answered an error): what it reuses stays.
      if (items.some((item) => item.sk === run.sk)) return;
      for (let i = 0; i < items.length; i += 25) {
        let pending: unknown[] = items.slice(i, i + 25).map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
        // Best effort: what is left unprocessed after a few tries stays, unread (nothing reads a partition without its run).
        for (let attempt = 0; pending.length > 0 && attempt < 4; attempt++) {
          const result = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending as never } }));
          pending = result.UnprocessedItems?.[tableName] ?? [];
        }
      }
    },
  };
}

export type ForksRepo = ReturnType<typeof forksRepo>;
