import * as z from 'zod';
import { withExample } from '#platform/http/common-schemas.js';
import { v2Page } from '#platform/openapi/pagination.js';
import { RUN_STATUSES } from '#runs/model.js';
import { CHECK_TYPES, ENDED_RUN_STATUSES, EVALUATION_STATUSES } from '../model.js';

const rate = z.number().min(0).max(1).nullable();

const CaseResultSchema = z
  .object({
    case_id: z.string(),
    attempts: z.number().int().meta({ description: 'Attempts recorded for the case (every one, once the evaluation completed).' }),
    passed: z.number().int().nullable().meta({ description: 'How many passed the case’s check; null when the case has none.' }),
    pass_rate: rate.meta({ description: '`passed / attempts`, exactly (not rounded); null when the case has no check.' }),
    run_statuses: z.partialRecord(z.enum(RUN_STATUSES), z.number().int()).meta({
      description: 'The attempts by their run’s status when the evaluation completed (a run still going counts with its status then, and does not pass).',
    }),
  })
  .meta({ id: 'EvaluationCaseResult' });

const ResultsSchema = z
  .object({
    per_case: z.array(CaseResultSchema),
    pass_rate: rate.meta({
      description: 'Passed over attempts across the cases with a check (`sum of passed / sum of attempts`, not rounded); null when no case has one.',
    }),
  })
  .meta({ id: 'EvaluationResults', description: 'Present once the evaluation is completed; null before, and on a cancelled or failed one.' });

const evaluationFields = {
  id: z.string().meta({ description: '`eval_` followed by an opaque part.' }),
  name: z.string(),
  status: z.enum(EVALUATION_STATUSES).meta({
    description:
      '`running` until `completed` (by POST …/complete, or by the service when the last run of a `run: true` evaluation ends) or `cancelled`; `failed` when the service could not start the runs of a `run: true` evaluation (`failure` says why).',
  }),
  harness_id: z.string(),
  machine_id: z.string(),
  run: z.boolean().meta({ description: 'The service starts and records the runs, and completes the evaluation.' }),
  case_count: z.number().int(),
  attempts_per_case: z.number().int(),
  attempt_count: z.number().int().meta({ description: '`case_count × attempts_per_case`: the slots `(case, attempt_index)`.' }),
  recorded_attempts: z.number().int().meta({ description: 'Slots filled with a run.' }),
  ended_attempts: z.number().int().meta({ description: 'Slots whose run’s end is recorded.' }),
  results: ResultsSchema.nullable(),
  failure: z
    .object({ code: z.enum(['runs_not_started', 'internal_error']), message: z.string() })
    .nullable()
    .meta({ description: 'Present on a failed evaluation.' }),
  created_at: z.string(),
  completed_at: z.string().nullable().meta({ description: 'When it left `running` (completed, cancelled or failed).' }),
};

const RUN_ID = 'run_0mwvm6w71Qx3LhT0pV9sKe2bA';

/** A completed evaluation of one case and two attempts, one of which passed. */
const SUMMARY_EXAMPLE = {
  id: 'eval_0mwvm5a11Lp4QzR8sT2vW6xYk',
  name: 'Greeting regression',
  status: 'completed',
  harness_id: 'h_0mwvm5z02Rk7VdJ2nW4yTq8cB',
  machine_id: 'mch_0mwvm6w715Up1NimNL49uBANV',
  run: true,
  case_count: 1,
  attempts_per_case: 2,
  attempt_count: 2,
  recorded_attempts: 2,
  ended_attempts: 2,
  results: { per_case: [{ case_id: 'hello', attempts: 2, passed: 1, pass_rate: 0.5, run_statuses: { completed: 2 } }], pass_rate: 0.5 },
  failure: null,
  created_at: '2026-01-31T09:00:00.000Z',
  completed_at: '2026-01-31T09:02:10.000Z',
} as const;

const ATTEMPT_EXAMPLE = {
  case_id: 'hello',
  attempt_index: 0,
  run_id: RUN_ID,
  recorded_at: '2026-01-31T09:00:01.000Z',
  run_status: 'completed',
  passed: true,
  check_error: null,
  ended_at: '2026-01-31T09:00:05.000Z',
} as const;

export const EvaluationSummarySchema = withExample(z.object(evaluationFields).meta({ id: 'EvaluationSummary' }), SUMMARY_EXAMPLE);

export const AttemptSchema = withExample(
  z
    .object({
      case_id: z.string(),
      attempt_index: z.number().int(),
      run_id: z.string(),
      recorded_at: z.string(),
      run_status: z.enum(ENDED_RUN_STATUSES).nullable().meta({ description: 'How the run ended; null until its end is recorded (within seconds of it).' }),
      passed: z.boolean().nullable().meta({ description: 'Whether the output passed the case’s check; null without a check, or before the run ended.' }),
      check_error: z
        .string()
        .nullable()
        .meta({ description: 'Why the check could not pass: the run failed or was cancelled, or the JSONata predicate failed.' }),
      ended_at: z.string().nullable(),
    })
    .meta({ id: 'EvaluationAttempt' }),
  ATTEMPT_EXAMPLE,
);

export const EvaluationSchema = withExample(
  z
    .object({
      ...evaluationFields,
      cases: z.array(
        z.object({
          id: z.string(),
          input: z.union([z.string(), z.record(z.string(), z.unknown())]),
          expected: z.object({ type: z.enum(CHECK_TYPES), value: z.string() }).nullable(),
          attempts: z.array(AttemptSchema).meta({ description: 'The attempts recorded for the case, by `attempt_index`.' }),
        }),
      ),
    })
    .meta({ id: 'Evaluation' }),
  {
    ...SUMMARY_EXAMPLE,
    cases: [
      {
        id: 'hello',
        input: 'Hello!',
        expected: { type: 'exact', value: 'Hello!' },
        attempts: [
          ATTEMPT_EXAMPLE,
          {
            ...ATTEMPT_EXAMPLE,
            attempt_index: 1,
            run_id: 'run_0mwvm6w72Bn5KcM1dF9gH3jLq',
            passed: false,
            check_error: null,
            ended_at: '2026-01-31T09:02:09.000Z',
          },
        ],
      },
    ],
  },
);

export const EvaluationList = v2Page(EvaluationSummarySchema, { id: 'EvaluationList', itemsDescription: 'Newest first, without their cases.' });

/** What every route on one evaluation by id answers when it is not the caller's to see. */
export const EVALUATION_NOT_FOUND = "No such evaluation, a malformed id, or another account's (indistinguishable, `not_found`).";

/** The 409s of a call that needs the evaluation running. */
export const PAST_RUNNING =
  'The evaluation is past the state the call needs: `evaluation_completed`, `evaluation_cancelled`, or `evaluation_not_running` (it failed).';
