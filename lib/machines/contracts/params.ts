/** The path parameter of every route on one machine. */
export const MachineIdParams = { id: { description: 'The machine id (`mch_…`). A malformed, unknown or other account’s id answers the same 404.' } };
