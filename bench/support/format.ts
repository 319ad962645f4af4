/** How figures are written in docs/benchmarks.md and on the console. */

export const kb = (bytes: number): number => bytes / 1024;
export const fmtKb = (bytes: number): string => kb(bytes).toFixed(1);
export const fmtMs = (ms: number): string => ms.toFixed(1);
export const fmtX = (ratio: number): string => `${ratio.toFixed(2)}×`;
/** A multiple, with two decimals near 1 so that 2.60 against 2.50 does not read as 1.0×. */
export const times = (ratio: number): string => `${ratio.toFixed(ratio < 2 ? 2 : 1)}×`;
/** A difference in milliseconds, in words: `12.3 ms more` / `1.2 ms less`. */
export const moreMs = (ms: number): string => `${fmtMs(Math.abs(ms))} ms ${ms >= 0 ? 'more' : 'less'}`;
/** Figures that may be missing (no samples) read `n/a`. */
export const num = (n: number, digits = 2): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
export const ms = (n: number): string => (Number.isFinite(n) ? `${n.toFixed(1)} ms` : 'n/a');
export const pct = (part: number, whole: number): string => `${whole > 0 ? Math.round((100 * part) / whole) : 0} %`;
export const usd = (n: number): string => `$${n.toFixed(2)}`;
export const usd4 = (n: number): string => `$${n.toFixed(4)}`;
export const perMillionPrice = (unitPrice: number): string => `$${(unitPrice * 1e6).toFixed(3).replace(/0$/, '')}`;

/** A budget cell of a report table. */
export const mark = (pass: boolean): string => (pass ? 'pass' : '**FAIL**');
/** A budget on the console. */
export const passFail = (pass: boolean): string => (pass ? 'pass' : 'FAIL');
/** `pass (n of n)` or `FAIL (k of n…)` for the console's budget lines. */
export const budgetCount = (failing: number, total: number, failDetail = ''): string =>
  failing ? `FAIL (${failing} of ${total}${failDetail})` : `pass (${total} of ${total})`;

/** `200 ×19, 500 ×1` */
export const counts = (byKey: Record<string, number>): string =>
  Object.entries(byKey)
    .map(([key, n]) => `${key} ×${n}`)
    .join(', ');

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Lines of a section, written one call at a time. */
export function lineWriter(): { lines: string[]; out: (line?: string) => void } {
  const lines: string[] = [];
  return { lines, out: (line = '') => lines.push(line) };
}

export const log = (line: string): void => console.log(`[bench] ${line}`);
