import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { v1Page } from '#platform/openapi/pagination.js';
import { MACHINE_BUSY, TARGET_NOT_FOUND } from '../model.js';
import { CREATE_EXAMPLE, documentedTarget } from '../schemas.js';

const ScheduleErrorSchema = z
  .object({
    code: z.string().meta({
      description: `The problem’s code: \`rate_limited\` (work in progress at the account’s ceiling), \`usage_window_exceeded\`, \`insufficient_balance\`, \`forbidden\` (suspended), \`${MACHINE_BUSY}\` (a \`reject\` run target’s machine was busy), \`harness_not_runnable\`, \`${TARGET_NOT_FOUND}\` (the version, harness or machine is gone: the schedule was disabled), \`internal_error\` (the firing failed on every attempt).`,
    }),
    message: z.string(),
    at: z.string().datetime().meta({ description: 'When it was recorded.' }),
    scheduled_at: z.string().datetime().meta({ description: 'The firing it is about.' }),
  })
  .meta({ id: 'ScheduleError' });

const SCHEDULE = {
  id: 'sch_0mwvm6w715Up1NimNL49uBANV',
  ...CREATE_EXAMPLE,
  enabled: true,
  next_fire_at: '2026-02-02T08:00:00.000Z',
  last_fired_at: '2026-01-30T08:00:00.000Z',
  last_error: null,
  created_at: '2026-01-28T16:20:00.000Z',
  updated_at: '2026-01-28T16:20:00.000Z',
} as const;

export const ScheduleSchema = withExample(
  z
    .object({
      id: z.string().meta({ description: '`sch_…`.' }),
      name: z.string(),
      expression: z.string().meta({ description: 'In its canonical form: single spaces, names upper case.' }),
      timezone: z.string(),
      target: documentedTarget(),
      enabled: z.boolean(),
      next_fire_at: z.string().datetime().nullable().meta({ description: 'When it fires next; null while disabled.' }),
      last_fired_at: z
        .string()
        .datetime()
        .nullable()
        .meta({ description: 'The scheduled time of the latest firing that made its request or run (`trigger` included); null before any.' }),
      last_error: ScheduleErrorSchema.nullable().meta({
        description: 'Why the latest firing made nothing, when it did not; cleared by the next firing that makes its request or run.',
      }),
      created_at: z.string().datetime(),
      updated_at: z.string().datetime(),
    })
    .meta({ id: 'Schedule' }),
  SCHEDULE,
);

export const ListSchedulesResponse = v1Page('schedules', ScheduleSchema, { id: 'ScheduleList', itemsDescription: 'Newest first.' });

export const TriggerResponse = withExample(
  z
    .object({
      schedule: ScheduleSchema,
      firing: z
        .object({
          scheduled_at: z.string().datetime().meta({ description: 'The time of this firing: now. Its request or run carries it in `metadata.scheduled_at`.' }),
          workflow_request_id: z.uuid().optional().meta({ description: 'The workflow request it started (a workflow target).' }),
          run_id: z.string().optional().meta({ description: 'The run it created (a run target).' }),
        })
        .meta({ id: 'ScheduleFiring' }),
    })
    .meta({ id: 'ScheduleTriggered' }),
  {
    schedule: { ...SCHEDULE, last_fired_at: '2026-01-31T10:15:00.000Z' },
    firing: { scheduled_at: '2026-01-31T10:15:00.000Z', workflow_request_id: '7e9a1c3d-5f2b-4d6e-8a0c-2b4d6f8a0c1e' },
  },
);

/** What every route on one schedule by id answers when it is not the caller's to see. */
export const SCHEDULE_NOT_FOUND = "No such schedule, a malformed id, or another account's (indistinguishable, `not_found`).";

export const SCHEDULE_INVALID =
  'A field is missing or malformed (`validation_failed`; `errors` name it with a JSON pointer): an expression that is not one of the two forms, fires more often than once a minute, or restricts both day-of-month and day-of-week (`/expression`, code `invalid_expression`); a time zone that is not an IANA name (`/timezone`, `invalid_timezone`); a target of neither kind, or whose version, entry nodes, harness or machine are not the account’s (`/target/...`).';
