/** An interaction's statuses (decisions.md, Interaction): pending until answered, expired or cancelled. */
export const INTERACTION_STATUSES = ['pending', 'answered', 'expired', 'cancelled'] as const;
export type InteractionStatus = (typeof INTERACTION_STATUSES)[number];
