import type { EventLogRef, LoggedEvent } from '#events/pages.js';
import { keys } from '#platform/table/keys.js';
import type { TableRef } from '#platform/table/table.js';
import type { RunEventData } from './model.js';

/**
 * Run events (decisions.md, Run event): a record of the run, not
 * notifications. Every change of a run writes its events in the same
 * transaction as the change, as one page of the shared event log
 * (lib/events/pages.ts) keyed by its first seq, on condition that the run's
 * `event_seq` is still the one read: seqs are 1, 2, 3… with no gaps and no
 * duplicates, and no change is ever without its event.
 */

/** How long run events are kept after they were written (docs/data-model.md); a cursor or Last-Event-ID older than this answers 410. */
export const RUN_EVENT_RETENTION_SECONDS = 30 * 24 * 60 * 60;

export const runEventLog = (table: TableRef, runId: string): EventLogRef => ({
  table,
  pageKey: (seq) => keys.runEvent(runId, seq),
  retentionSeconds: RUN_EVENT_RETENTION_SECONDS,
  entity: 'run_event_page',
});

/** An event's public id: opaque, unique across runs, and carrying its seq (a Last-Event-ID resumes from it). */
export const runEventId = (runId: string, seq: number): string => Buffer.from(`${runId}:${seq}`).toString('base64url');

/** The seq of an event id of this run, or undefined for anything else. */
export function seqOfEventId(runId: string, id: string | undefined): number | undefined {
  if (!id) return undefined;
  const [run, seq, extra] = Buffer.from(id.trim(), 'base64url').toString('utf8').split(':');
  if (run !== runId || extra !== undefined || !seq || !/^\d{1,10}$/.test(seq)) return undefined;
  return Number(seq);
}

/** An event as the API shows it. */
export const runEventView = (runId: string, event: LoggedEvent<RunEventData>) => ({
  id: runEventId(runId, event.seq),
  run_id: runId,
  seq: event.seq,
  type: event.data.type,
  created_at: event.created_at,
  data: event.data.data,
});
export type RunEventView = ReturnType<typeof runEventView>;
