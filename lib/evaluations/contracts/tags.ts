import { defineTag } from '#platform/http/contract.js';

/** This feature's OpenAPI tag: its description opens the feature's operations in the document. */
export const EVALUATIONS_TAG = defineTag(
  'Evaluations',
  'A harness over a set of cases, several attempts each: the caller records a run for each `(case, attempt_index)` and completes the evaluation, or (`run: true`) the service starts the runs, grades their output against each case’s `expected` and completes it with its pass rates.',
);
