import { defineEndpoint } from '#platform/http/contract.js';
import { RunEventsQuery } from '../run-events-schemas.js';
import { RunIdParams } from './params.js';
import { RUNS_TAG } from './tags.js';

export const RunsEvents = defineEndpoint({
  id: 'RunsEvents',
  method: 'GET',
  path: '/v2/runs/{id}/events',
  handler: 'functions/runs/events.ts',
  auth: 'bearer',
  params: RunIdParams,
  query: RunEventsQuery,
  headers: { 'Last-Event-ID': { description: 'Event stream only: the `id` of the last event received; the stream resumes after it.' } },
  // One path, two representations: the streaming function URL answers the JSON page as well.
  streaming: true,
  table: 'read',
  serviceKey: true,
  timeoutSeconds: 900,
  operationId: 'listRunEvents',
  summary: 'List or stream a run’s events',
  description: [
    'The run’s events in `seq` order (1, 2, 3…, no gaps): `run.status`, `message`, `message.delta` (the assistant’s answer while it is produced, at most about 4 a second; see `RunMessageDeltaEvent`), `tool_call`, `tool_result`, `interaction`, `usage`. They are the run’s record, kept **30 days** after they were written.',
    '`Accept` chooses the representation: `application/json` (also when `Accept` is absent, is `*/*`, or weighs both alike) answers a page, `{data, page: {has_more, next_cursor}}`, of `limit` events (1 to 500, default 100) after `cursor`; `text/event-stream` answers the stream. An `Accept` that takes neither is 406 `not_acceptable`.',
    'The stream sends each event as `id: <event id>`, `event: <type>`, `data: <event JSON>`, a `: keepalive` comment every 3 seconds while nothing happens, and closes after the run’s terminal event (`run.status` with `completed`, `failed` or `cancelled`). It starts at seq 1, or after `Last-Event-ID` (an event id of this run; any other is ignored). It also closes after 30 minutes, and in AWS before the streaming function’s 15-minute limit: reconnect with `Last-Event-ID` to continue. A reconnect to an ended run after its last event is answered 204, which tells EventSource clients to stop.',
    'Retention: without a cursor or `Last-Event-ID`, events start at the oldest one kept (seq 1 unless the run is older than 30 days). A cursor or `Last-Event-ID` whose following events have expired is 410 `event_cursor_expired`: start again without it.',
  ].join('\n\n'),
  tags: [RUNS_TAG],
  responses: () =>
    import('../openapi/run-events-responses.js').then(({ RunEventsOk }) => ({
      200: RunEventsOk,
      204: { description: 'Event stream only: resumed after the last event of an ended run; nothing more will come.' },
      400: '`limit` is not an integer from 1 to 500 (`validation_failed`, with an `errors` entry naming `limit` in `query`); a cursor the service did not issue (`cursor_invalid`), or one of another run’s events (`cursor_filter_mismatch`).',
      404: 'No such run, a malformed id, or another account’s (indistinguishable, `not_found`).',
      406: '`Accept` takes neither `application/json` nor `text/event-stream` (`not_acceptable`).',
      410: 'The events after the cursor or `Last-Event-ID` are past the 30-day retention (`event_cursor_expired`).',
    })),
});
