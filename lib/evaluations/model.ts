import type { RunInput, RunStatus } from '#runs/index.js';

/**
 * An evaluation (decisions.md, v2 evaluations): a harness run over a set of
 * cases, `attempts_per_case` attempts each. Each attempt is a slot
 * `(case, attempt_index)` that holds one run for ever, recorded by the
 * caller or, with `run: true`, by the service, which starts the runs itself.
 * The outcome of an attempt is its run's end (and, when the case says what
 * it expects, whether the output passed that check).
 */

/**
 * `running` until completed (by the caller, or by the service when the last
 * run of a `run: true` evaluation ends) or cancelled; `failed` when the
 * service could not start the runs of a `run: true` evaluation.
 */
export const EVALUATION_STATUSES = ['running', 'completed', 'cancelled', 'failed'] as const;
export type EvaluationStatus = (typeof EVALUATION_STATUSES)[number];

/** At most this many cases, and attempts per case (so an evaluation is at most 500 runs, and its partition one Query of a few pages). */
export const MAX_CASES = 50;
export const MAX_ATTEMPTS_PER_CASE = 10;
/** The cases of an evaluation are at most this many bytes of JSON (they are written in the creation's one transaction, and echoed). */
export const CASES_MAX_BYTES = 1_048_576;
/** A check's `value` is at most this many characters. */
export const CHECK_VALUE_MAX = 10_000;

export const CHECK_TYPES = ['exact', 'contains', 'regex', 'jsonata'] as const;
export type CheckType = (typeof CHECK_TYPES)[number];

/** What a case expects of a run's output (decisions.md): equal to, containing, matching `value`, or a JSONata predicate over `{input, output, run}`. */
export interface Expected {
  type: CheckType;
  value: string;
}

/** `eval_`, 9 base-36 digits of creation time, 16 base64url characters (lib/platform/ids.ts). */
export const EVALUATION_ID = /^eval_[0-9a-z]{9}[A-Za-z0-9_-]{16}$/;

/** How an attempt's run ended. */
export const ENDED_RUN_STATUSES = ['completed', 'failed', 'cancelled'] as const satisfies readonly RunStatus[];
export type EndedRunStatus = (typeof ENDED_RUN_STATUSES)[number];

export interface EvaluationFailure {
  code: 'runs_not_started' | 'internal_error';
  message: string;
}

export interface CaseResult {
  case_id: string;
  /** Attempts recorded for the case. */
  attempts: number;
  /** How many of them passed the case's check; null when the case has none. */
  passed: number | null;
  /** `passed / attempts`, not rounded; null when the case has no check. */
  pass_rate: number | null;
  /** The attempts by their run's status when the evaluation completed. */
  run_statuses: Partial<Record<RunStatus, number>>;
}

export interface EvaluationResults {
  per_case: CaseResult[];
  /** Passed over attempts across the cases with a check; null when no case has one. */
  pass_rate: number | null;
}

/** The head item's fields: the evaluation without its cases and attempts. */
export interface Evaluation {
  id: string;
  account_id: string;
  name: string;
  status: EvaluationStatus;
  harness_id: string;
  machine_id: string;
  attempts_per_case: number;
  /** The service starts the runs and completes the evaluation. */
  run: boolean;
  /** The case ids in order: a case's position is its index here. */
  case_ids: string[];
  /** Slots filled (raised in the transaction that fills one). */
  recorded_attempts: number;
  /** Slots whose run's end is recorded (raised in the transaction that records it): a `run: true` evaluation completes when it reaches every slot. */
  ended_attempts: number;
  results: EvaluationResults | null;
  failure: EvaluationFailure | null;
  created_at: string;
  /** When it left `running`. */
  completed_at: string | null;
}

export interface EvaluationCase {
  id: string;
  position: number;
  input: RunInput;
  expected: Expected | null;
}

/** One filled slot. The outcome fields are null until the run's end is recorded. */
export interface Attempt {
  case_id: string;
  position: number;
  attempt_index: number;
  run_id: string;
  recorded_at: string;
  run_status: EndedRunStatus | null;
  /** Whether the output passed the case's check; null without a check, or before the run ended. */
  passed: boolean | null;
  /** Why the check could not pass (a failed run, a JSONata error). */
  check_error: string | null;
  ended_at: string | null;
}

/** What a run's end makes of an attempt. */
export interface AttemptOutcome {
  run_status: EndedRunStatus;
  passed: boolean | null;
  check_error: string | null;
}

export interface EvaluationWhole {
  evaluation: Evaluation;
  cases: EvaluationCase[];
  /** In slot order: by case position, then attempt index. */
  attempts: Attempt[];
}

/** What recording a run in a slot came to. */
export type RecordResult =
  | { kind: 'recorded' }
  /** The slot holds a run already (maybe this one). */
  | { kind: 'taken'; attempt: Attempt }
  /** The run is recorded in another slot of this evaluation. */
  | { kind: 'run_elsewhere' }
  /** The evaluation is not running (any more). */
  | { kind: 'not_running' };

/** Where a run is recorded: one evaluation's slot. */
export interface RunAttemptRef {
  evaluation_id: string;
  account_id: string;
  position: number;
  attempt_index: number;
}

/** How an evaluation leaves `running`. */
export interface EvaluationEnd {
  status: Exclude<EvaluationStatus, 'running'>;
  completed_at: string;
  results?: EvaluationResults;
  failure?: EvaluationFailure;
}

export const attemptCount = (evaluation: Pick<Evaluation, 'case_ids' | 'attempts_per_case'>): number =>
  evaluation.case_ids.length * evaluation.attempts_per_case;

/** The evaluation as lists show it: without its cases. */
export const evaluationView = (evaluation: Evaluation) => ({
  id: evaluation.id,
  name: evaluation.name,
  status: evaluation.status,
  harness_id: evaluation.harness_id,
  machine_id: evaluation.machine_id,
  run: evaluation.run,
  case_count: evaluation.case_ids.length,
  attempts_per_case: evaluation.attempts_per_case,
  attempt_count: attemptCount(evaluation),
  recorded_attempts: evaluation.recorded_attempts,
  ended_attempts: evaluation.ended_attempts,
  results: evaluation.results,
  failure: evaluation.failure,
  created_at: evaluation.created_at,
  completed_at: evaluation.completed_at,
});
export type EvaluationView = ReturnType<typeof evaluationView>;

export const attemptView = (attempt: Attempt) => ({
  case_id: attempt.case_id,
  attempt_index: attempt.attempt_index,
  run_id: attempt.run_id,
  recorded_at: attempt.recorded_at,
  run_status: attempt.run_status,
  passed: attempt.passed,
  check_error: attempt.check_error,
  ended_at: attempt.ended_at,
});

/** The evaluation with its cases and the attempts recorded for each. */
export const evaluationDetailView = ({ evaluation, cases, attempts }: EvaluationWhole) => ({
  ...evaluationView(evaluation),
  cases: cases.map((c) => ({
    id: c.id,
    input: c.input,
    expected: c.expected,
    attempts: attempts.filter((a) => a.position === c.position).map(attemptView),
  })),
});
