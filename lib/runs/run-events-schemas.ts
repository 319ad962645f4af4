import * as z from 'zod';

/** Events per page of GET /v2/runs/{id}/events. */
export const RUN_EVENTS_LIMIT = { max: 500, default: 100 } as const;

/**
 * The query of GET /v2/runs/{id}/events. `limit` comes through as sent and
 * the use case checks it (lib/runs/run-events.ts): the specification answers
 * a bad event limit with 400 `validation_failed` naming `limit`, not the
 * query parser's 400 `invalid_parameter`. The document states it as the
 * integer it must be.
 */
export const RunEventsQuery = z.object({
  limit: z
    .string()
    .optional()
    .meta({
      type: 'integer',
      minimum: 1,
      maximum: RUN_EVENTS_LIMIT.max,
      default: RUN_EVENTS_LIMIT.default,
      description: `Events per page, 1 to ${RUN_EVENTS_LIMIT.max}; anything else is 400 \`validation_failed\`. JSON only: the event stream ignores it.`,
    }),
  cursor: z.string().optional().meta({
    description: '`page.next_cursor` of the previous page of this run’s events. JSON only: the event stream resumes with `Last-Event-ID`.',
  }),
});
