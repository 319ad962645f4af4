import type { EventLogRef } from '#events/pages.js';
import { keys } from '#platform/table/keys.js';
import type { TableRef } from '#platform/table/table.js';

/** How long a request's event log is kept (docs/data-model.md): long enough to resume any stream. */
export const EVENT_RETENTION_SECONDS = 7 * 24 * 60 * 60;

/** Where a workflow request's event log lives (lib/events/pages.ts): pages in the request's partition. */
export const requestEventLog = (table: TableRef, requestId: string): EventLogRef => ({
  table,
  pageKey: (seq) => keys.requestEvent(requestId, seq),
  retentionSeconds: EVENT_RETENTION_SECONDS,
  entity: 'request_event_page',
});
