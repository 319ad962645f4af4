const TONE: Record<string, string> = {
  completed: 'ok',
  delivered: 'ok',
  answered: 'ok',
  allowed: 'ok',
  active: 'ok',
  enabled: 'ok',
  idle: 'ok',
  running: 'info',
  in_progress: 'info',
  busy: 'info',
  queued: 'wait',
  pending: 'wait',
  waiting: 'wait',
  blocked: 'wait',
  failed: 'bad',
  limited: 'bad',
  disabled: 'bad',
};

/** A status as a badge: its word always shown, the colour only a help. */
export function Status({ value }: { value: string }) {
  return <span class={`badge badge-${TONE[value] ?? 'muted'}`}>{value.replace(/_/g, ' ')}</span>;
}
