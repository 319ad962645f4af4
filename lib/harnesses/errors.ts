import { DomainError, type FieldError } from '#platform/errors.js';

/** The entries not named by a path: the set as a whole, or a path that is empty. */
const POINTER_NAME = /^\/files(\/\d+\/path)?$/;

/** 400 `harness_files_invalid`: the files sent are not a harness; one `errors` entry per offending path, all named in the detail. */
export class HarnessFilesInvalidError extends DomainError {
  constructor(errors: FieldError[]) {
    const named = errors.map((e) => `${POINTER_NAME.test(e.name) ? e.name : JSON.stringify(e.name)}: ${e.reason}`);
    super('malformed', 'harness_files_invalid', `The files are not a valid harness. ${named.join('; ')}.`, { errors });
  }
}
