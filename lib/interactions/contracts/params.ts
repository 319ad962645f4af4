/** The path parameter of every route on one interaction. */
export const InteractionIdParams = { id: { format: 'uuid' } } as const;
