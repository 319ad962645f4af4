/**
 * What the request's event log says, state change by state change, for a
 * chain of three queued nodes a → b → c that all complete: each change
 * once, in the order it happened (the unit and integration tests of the
 * queued path both expect it).
 */
export const CHAIN_OF_THREE_LOGGED = [
  'a in_progress',
  'request in_progress',
  'a completed',
  'b in_progress',
  'b completed',
  'c in_progress',
  'c completed',
  'request completed',
] as const;
