import { formatClock, formatDateTime } from '../format';

/** A moment in the person's locale; the exact UTC value on hover and for machines. */
export function Time({ value, clock = false }: { value: string | null | undefined; clock?: boolean }) {
  if (!value) return <span class="muted">—</span>;
  return (
    <time dateTime={value} title={value}>
      {clock ? formatClock(value) : formatDateTime(value)}
    </time>
  );
}
