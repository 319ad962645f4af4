/** The path parameter of every route on one harness. */
export const HarnessIdParams = { id: { description: 'The harness id (`h_…`). A malformed, unknown or other account’s id answers the same 404.' } };
