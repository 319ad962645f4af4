/** The path parameter of every route on one schedule. */
export const ScheduleIdParams = { id: { description: 'The schedule id (`sch_…`). A malformed, unknown or other account’s id answers the same 404.' } };
