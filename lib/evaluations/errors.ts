import { ConflictError, DomainError, type FieldError, NotFoundError, ValidationError } from '#platform/errors.js';
import type { Evaluation } from './model.js';

export const evaluationNotFound = (): NotFoundError => new NotFoundError('No such evaluation.');

/** 422 `validation_failed` naming one body field. */
export const fieldInvalid = (name: string, reason: string, code: string): ValidationError => new ValidationError([{ name, location: 'body', reason, code }]);

/** 409 `evaluation_incomplete`: complete was called with attempts missing; one `errors` entry per case that misses some. */
export class EvaluationIncompleteError extends DomainError {
  constructor(errors: FieldError[]) {
    super(
      'conflict',
      'evaluation_incomplete',
      `${errors.length} case${errors.length === 1 ? '' : 's'} miss attempts: ${errors.map((e) => e.name).join(', ')}.`,
      {
        errors,
      },
    );
  }
}

/** 409 `attempt_conflict`: another run holds the slot `(case, attempt_index)`. */
export class AttemptConflictError extends ConflictError {
  constructor(caseId: string, attemptIndex: number, runId: string, detail?: string) {
    super('attempt_conflict', detail ?? `Attempt ${attemptIndex} of case ${caseId} is already recorded, with run ${runId}.`);
  }
}

/**
 * 409 for a call that needs the evaluation `running` and finds it past
 * that (specification, Interaction and evaluation): `evaluation_completed`,
 * `evaluation_cancelled`, or `evaluation_not_running` (it failed).
 */
export function pastRunning(evaluation: Pick<Evaluation, 'id' | 'status'>): ConflictError {
  switch (evaluation.status) {
    case 'completed':
      return new ConflictError('evaluation_completed', `The evaluation ${evaluation.id} is completed.`);
    case 'cancelled':
      return new ConflictError('evaluation_cancelled', `The evaluation ${evaluation.id} is cancelled.`);
    default:
      return new ConflictError('evaluation_not_running', `The evaluation ${evaluation.id} is ${evaluation.status}, not running.`);
  }
}
