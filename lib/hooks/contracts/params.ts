/** The path parameter of every route on one hook. */
export const HookIdParams = { id: { description: 'The hook id (`hook_…`). A malformed, unknown or other account’s id answers the same 404.' } };
