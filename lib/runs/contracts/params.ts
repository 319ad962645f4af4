/** The path parameter of every route on one run. */
export const RunIdParams = { id: { description: 'The run id (`run_…`). A malformed, unknown or other account’s id answers the same 404.' } };
