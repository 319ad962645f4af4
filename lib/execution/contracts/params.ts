/** The path parameter of every route on one workflow request by id. */
export const RequestIdParams = { id: { format: 'uuid' } } as const;
