import { ConflictError, DomainError, type FieldError, NotFoundError, ValidationError } from '#platform/errors.js';

/** 409 `chat_busy`: the chat's previous run has not ended and the call said `if_busy: "reject"`. */
export class ChatBusyError extends ConflictError {
  constructor(runId: string) {
    super('chat_busy', `The chat's previous run ${runId} has not ended; wait for it, or send if_busy "enqueue" or "interrupt".`);
  }
}

/** 422 `harness_not_runnable`: a well-formed harness this service cannot run as it stands. */
export class HarnessNotRunnableError extends DomainError {
  constructor(reason: string) {
    super('invalid', 'harness_not_runnable', `The harness cannot run: ${reason}`);
  }
}

/** 422 `validation_failed` naming one body field: the same answer for an unknown id and another account's. */
export const fieldInvalid = (field: 'harness_id' | 'machine_id' | 'chat_id', reason: string): ValidationError =>
  new ValidationError([{ name: `/${field}`, location: 'body', reason, code: 'not_found' }]);

/**
 * 400 `validation_failed` naming `limit` in `query`: the specification lists the event limit
 * among the 400s (a parameter the endpoint validates itself), not the 422s of a body field.
 */
export class EventLimitInvalidError extends DomainError {
  constructor(error: FieldError) {
    super('malformed', 'validation_failed', `The request is not valid. ${error.name}: ${error.reason}.`, { errors: [error] });
  }
}

export const runNotFound = (): NotFoundError => new NotFoundError('No such run.');

/** 409 `run_not_ended`: a fork (POST /v2/runs/{id}/fork) is of a run that has ended. */
export class RunNotEndedError extends ConflictError {
  constructor(runId: string, status: string) {
    super('run_not_ended', `The run ${runId} is ${status}: only a run that has ended (completed, failed or cancelled) can be forked.`);
  }
}
