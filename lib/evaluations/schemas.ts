import * as z from 'zod';
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX } from '#platform/config/limits.js';
import { boundedJson, JSON_DEPTH_RULE, limitParam, withExample } from '#platform/http/common-schemas.js';
import { RUN_INPUT_MAX_BYTES } from '#runs/model.js';
import { CHECK_TYPES, CHECK_VALUE_MAX, EVALUATION_STATUSES, MAX_ATTEMPTS_PER_CASE, MAX_CASES } from './model.js';

const ExpectedBody = z
  .strictObject({
    type: z.enum(CHECK_TYPES),
    value: z.string().min(1).max(CHECK_VALUE_MAX),
  })
  .meta({
    id: 'EvaluationExpected',
    description:
      'Checked against the run’s `output` when it ends: `exact` (equal to `value`), `contains` (contains `value`), `regex` (`value` is a JavaScript pattern, no flags, that matches somewhere in the output), `jsonata` (`value` is a JSONata predicate over `{input, output, run}`, truthy to pass). A run that failed or was cancelled fails its check.',
  });

/** A case's input is what its runs are given: POST /v2/runs's `input`, with the same bound. */
const CaseInput = boundedJson(z.union([z.string().max(RUN_INPUT_MAX_BYTES), z.record(z.string(), z.unknown())]))
  .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= RUN_INPUT_MAX_BYTES, { error: `must be at most ${RUN_INPUT_MAX_BYTES} bytes of JSON` })
  .meta({
    description: `The input of each run of the case, as POST /v2/runs takes it (the user’s message, or the steps the \`local/script\` model plays). ${JSON_DEPTH_RULE}`,
  });

const CaseBody = z.strictObject({
  id: z.string().min(1).max(100).meta({ description: 'The case’s id, unique within the evaluation.' }),
  input: CaseInput,
  expected: ExpectedBody.optional(),
});

export const CreateEvaluationBody = withExample(
  z
    .strictObject({
      name: z.string().min(1).max(200),
      harness_id: z.string().min(1).max(100),
      machine_id: z.string().min(1).max(100),
      cases: z
        .array(CaseBody)
        .min(1)
        .max(MAX_CASES)
        .meta({ description: `1 to ${MAX_CASES} cases with unique ids, at most 1 MiB of JSON in all.` }),
      attempts_per_case: z.number().int().min(1).max(MAX_ATTEMPTS_PER_CASE),
      run: z.boolean().default(false).meta({
        description:
          'The service starts `cases × attempts_per_case` runs itself on the machine (queued there in slot order like any runs), records each as it creates it, and completes the evaluation when the last one ends.',
      }),
    })
    .meta({ id: 'CreateEvaluationRequest' }),
  {
    name: 'Greeting regression',
    harness_id: 'h_0mwvm5z02Rk7VdJ2nW4yTq8cB',
    machine_id: 'mch_0mwvm6w715Up1NimNL49uBANV',
    cases: [{ id: 'hello', input: 'Hello!', expected: { type: 'exact', value: 'Hello!' } }],
    attempts_per_case: 2,
    run: true,
  },
);
export type CreateEvaluationInput = z.infer<typeof CreateEvaluationBody>;

export const RecordAttemptBody = withExample(
  z
    .strictObject({
      case_id: z.string().min(1).max(100),
      attempt_index: z.number().int().min(0).meta({ description: 'From 0 to `attempts_per_case - 1`.' }),
      run_id: z
        .string()
        .min(1)
        .max(100)
        .meta({ description: 'A run of the caller’s, of the evaluation’s harness, recorded in no other slot of the evaluation.' }),
    })
    .meta({ id: 'RecordAttemptRequest' }),
  { case_id: 'hello', attempt_index: 0, run_id: 'run_0mwvm6w71Qx3LhT0pV9sKe2bA' },
);
export type RecordAttemptInput = z.infer<typeof RecordAttemptBody>;

export const ListEvaluationsQuery = z.object({
  status: z.enum(EVALUATION_STATUSES).optional(),
  limit: limitParam(LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT),
  cursor: z.string().min(1).optional().meta({ description: '`page.next_cursor` of the previous page.' }),
});
