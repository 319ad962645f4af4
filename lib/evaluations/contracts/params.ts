/** The path parameter of every route on one evaluation. */
export const EvaluationIdParams = { id: { description: 'The evaluation id (`eval_…`). A malformed, unknown or other account’s id answers the same 404.' } };
