/** An interaction's statuses (decisions.md, Interaction): pending until answered, expired or cancelled. */
export const INTERACTION_STATUSES = ['pending', 'answered', 'expired', 'cancelled'] as const;
export type InteractionStatus = (typeof INTERACTION_STATUSES)[number];

export type InteractionType = 'approval' | 'answer';

/** A question or approval waiting on a person, for a run or a workflow request's node. */
export interface Interaction {
  id: string;
  type: InteractionType;
  status: InteractionStatus;
  prompt: string | null;
  run_id: string | null;
  workflow_request_id: string | null;
  node_execution_id: string | null;
  node_id: string | null;
  response: Record<string, unknown> | null;
  created_at: string;
  resolved_at: string | null;
  /** After this the interaction can no longer be answered (`expired`); null: it waits as long as it takes (approval nodes). */
  expires_at: string | null;
  account_id: string;
}

/** The status as of `now`: a pending interaction past its `expires_at` is expired, whether or not that was written yet. */
export const statusAt = (i: Pick<Interaction, 'status' | 'expires_at'>, now: Date): InteractionStatus =>
  i.status === 'pending' && i.expires_at !== null && Date.parse(i.expires_at) <= now.getTime() ? 'expired' : i.status;
