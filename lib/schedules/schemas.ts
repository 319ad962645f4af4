import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '#platform/config/limits.js';
import { boundedJson, documentedAs, JSON_DEPTH_RULE, limitParam, withExample } from '#platform/http/common-schemas.js';
import { RUN_INPUT_MAX_BYTES } from '#runs/model.js';
import { EXPRESSION_RULE, ExpressionError, isTimeZone, parseExpression } from './expressions.js';
import { DEFAULT_TIMEZONE, SCHEDULE_IF_BUSY } from './model.js';

/** The most JSON a target may hold (its payload or input): it is stored on the schedule. */
export const TARGET_MAX_BYTES = 64 * 1024;

const name = z.string().trim().min(1).max(200).meta({ description: 'Leading and trailing spaces are removed.' });

const expression = z
  .string()
  .max(200)
  .superRefine((value, ctx) => {
    try {
      parseExpression(value);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message, params: { code: 'invalid_expression' } });
    }
  })
  .meta({
    description: `${EXPRESSION_RULE}. At most once a minute. A cron is read as wall-clock time in \`timezone\`; a rate counts its periods from when the expression was set (created, changed, or the schedule enabled again), whatever the time zone. The schedule shows the expression in its canonical form (single spaces, names upper case).`,
    example: 'cron(0 9 * * MON-FRI)',
  });

const timezone = z
  .string()
  .max(64)
  .refine(isTimeZone, { error: 'must be an IANA time zone name such as Europe/Berlin or UTC', params: { code: 'invalid_timezone' } })
  .meta({ description: 'An IANA time zone name (`Europe/Berlin`, `America/New_York`, `UTC`) the cron fields are read in, daylight saving included.' });

const TARGET_DESCRIPTION =
  'What each firing makes: a workflow request (`workflow_version_id`, `entry_node_ids`, `payload`) or a run (`harness_id`, `machine_id`, `input`, `if_busy`).';

const fitsTarget = (value: unknown) => Buffer.byteLength(JSON.stringify(value)) <= TARGET_MAX_BYTES;

const WorkflowTargetFields = {
  workflow_version_id: z.uuid().meta({ description: 'The version each firing runs: one of the account’s.' }),
  entry_node_ids: z.array(z.uuid()).min(1).max(200).meta({ description: 'Entry nodes of that version, as `POST /v1/workflow-requests/run` takes them.' }),
  payload: boundedJson(z.record(z.string(), z.unknown()))
    .refine(fitsTarget, { error: `must be at most ${TARGET_MAX_BYTES} bytes of JSON` })
    .optional()
    .meta({ description: `The entry nodes’ input on every firing. ${JSON_DEPTH_RULE}` }),
};

const RunTargetFields = {
  harness_id: z.string().min(1).max(100).meta({ description: 'The harness each firing runs: one of the account’s.' }),
  machine_id: z.string().min(1).max(100).meta({ description: 'The machine it runs on: one of the account’s.' }),
  input: boundedJson(z.union([z.string().max(RUN_INPUT_MAX_BYTES), z.record(z.string(), z.unknown())]))
    .refine(fitsTarget, { error: `must be at most ${TARGET_MAX_BYTES} bytes of JSON` })
    .meta({ description: `The run’s \`input\` on every firing, as \`POST /v2/runs\` takes it. ${JSON_DEPTH_RULE}` }),
  if_busy: z.enum(SCHEDULE_IF_BUSY).optional().meta({
    description:
      'Default `enqueue` (a schedule shows it always). When a firing finds the machine with a run going or waiting: queue the new run behind it (`enqueue`), or make nothing and record `last_error` with code `machine_busy` (`reject`: one at a time, a firing is skipped rather than piled up).',
  }),
};

const WorkflowTargetDoc = withExample(
  z.strictObject(WorkflowTargetFields).meta({ id: 'ScheduleWorkflowTarget', description: 'Each firing starts a workflow request.' }),
  { workflow_version_id: '9a3e5c71-2b4d-4e8f-8c1a-6d7e8f9a0b1c', entry_node_ids: ['5b0c8e2a-7d41-4f3b-9a6e-000000000001'], payload: { report: 'daily' } },
);
const RunTargetDoc = withExample(z.strictObject(RunTargetFields).meta({ id: 'ScheduleRunTarget', description: 'Each firing creates a run.' }), {
  harness_id: 'h_0mwvm5z02Rk7VdJ2nW4yTq8cB',
  machine_id: 'mch_0mwvm6w715Up1NimNL49uBANV',
  input: 'Summarise yesterday’s tickets.',
  if_busy: 'reject',
});

/**
 * The target as parsed: one object of every field of both kinds, told apart
 * by `harness_id`, so that a missing or foreign field is named at its own
 * pointer (a union would name only `/target`); the bodies are documented
 * with the union of the two (`documentedTarget`).
 */
const target = z
  .strictObject({
    workflow_version_id: WorkflowTargetFields.workflow_version_id.optional(),
    entry_node_ids: WorkflowTargetFields.entry_node_ids.optional(),
    payload: WorkflowTargetFields.payload,
    harness_id: RunTargetFields.harness_id.optional(),
    machine_id: RunTargetFields.machine_id.optional(),
    input: RunTargetFields.input.optional(),
    if_busy: RunTargetFields.if_busy,
  })
  .superRefine((value, ctx) => {
    const isRun = value.harness_id !== undefined || value.machine_id !== undefined || value.input !== undefined;
    const [required, foreign] = isRun
      ? [['harness_id', 'machine_id', 'input'], Object.keys(WorkflowTargetFields)]
      : [['workflow_version_id', 'entry_node_ids'], ['if_busy']];
    const fields = value as Record<string, unknown>;
    for (const field of required) {
      if (fields[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'is required', params: { code: 'required' } });
    }
    for (const field of foreign) {
      if (fields[field] === undefined) continue;
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: `is not a field of a ${isRun ? 'run' : 'workflow'} target (a target is either {workflow_version_id, entry_node_ids, payload?} or {harness_id, machine_id, input, if_busy?})`,
        params: { code: 'unexpected_field' },
      });
    }
  })
  .meta({
    description: TARGET_DESCRIPTION,
  });

export type TargetInput = z.output<typeof target>;

/** The target as documented: one of the two kinds. */
export const documentedTarget = () => z.union([WorkflowTargetDoc, RunTargetDoc]).meta({ id: 'ScheduleTarget', description: TARGET_DESCRIPTION });

const enabled = z.boolean().meta({ description: 'Whether it fires on its own; `trigger` fires it either way.' });

const createBodyOf = <T extends z.ZodType>(targetSchema: T) =>
  z.strictObject({ name, expression, timezone: timezone.default(DEFAULT_TIMEZONE), target: targetSchema, enabled: enabled.default(true) });

/** The example of a creation, which the schedule's own example repeats. */
export const CREATE_EXAMPLE = {
  name: 'Weekday report',
  expression: 'cron(0 9 * * MON-FRI)',
  timezone: 'Europe/Berlin',
  target: {
    workflow_version_id: '9a3e5c71-2b4d-4e8f-8c1a-6d7e8f9a0b1c',
    entry_node_ids: ['5b0c8e2a-7d41-4f3b-9a6e-000000000001'],
    payload: { report: 'daily' },
  },
} as const;

/** Parsed with the lenient target; documented with the union of the two targets. */
export const CreateScheduleBody = documentedAs(createBodyOf(target), () =>
  withExample(createBodyOf(documentedTarget()).meta({ id: 'CreateScheduleRequest' }), CREATE_EXAMPLE),
);

export type CreateScheduleInput = z.output<typeof CreateScheduleBody>;

const updateBodyOf = <T extends z.ZodType>(targetSchema: T) =>
  z.strictObject({
    name: name.optional(),
    expression: expression.optional(),
    timezone: timezone.optional(),
    target: targetSchema.optional(),
    enabled: enabled.optional(),
  });

export const UpdateScheduleBody = documentedAs(updateBodyOf(target), () =>
  withExample(updateBodyOf(documentedTarget()).meta({ id: 'UpdateScheduleRequest' }), { enabled: false }),
);

export type UpdateScheduleInput = z.output<typeof UpdateScheduleBody>;

export const ListSchedulesQuery = z.object({
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional().meta({ description: '`next_cursor` of the previous page.' }),
});
