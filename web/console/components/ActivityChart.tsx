import type { Schemas } from '@workflow-service/client';
import { formatCount, formatDay, usd } from '../format';

type Day = Schemas['DailyActivityEntry'];

export const METRICS = {
  cost: { label: 'Cost', of: (d: Day) => Math.round(d.total_cost * 1_000_000), show: usd },
  runs: { label: 'Runs', of: (d: Day) => d.run_count, show: formatCount },
  requests: { label: 'Workflow requests', of: (d: Day) => d.request_count, show: formatCount },
  nodes: { label: 'Node executions', of: (d: Day) => d.node_count, show: formatCount },
} as const;
export type Metric = keyof typeof METRICS;

/** Everything a day holds, in one sentence (each bar's title, and the table's cells say the same). */
export const describeDay = (d: Day) =>
  `${formatDay(d.date)}: ${usd(Math.round(d.total_cost * 1_000_000))}, ${formatCount(d.run_count)} runs, ${formatCount(d.request_count)} workflow requests, ${formatCount(d.node_count)} node executions`;

const HEIGHT = 100;
const BAR = 10;

/**
 * Daily activity as an SVG bar chart (one bar a day, today's marked): an
 * image with a summary for screen readers, each bar titled with its day's
 * numbers; the same data is in the table below it.
 */
export function ActivityChart({ days, metric, today }: { days: Day[]; metric: Metric; today: string }) {
  const { label, of, show } = METRICS[metric];
  const values = days.map(of);
  const max = Math.max(0, ...values);
  const total = values.reduce((a, b) => a + b, 0);
  const peak = days[values.indexOf(max)];
  const summary =
    max === 0
      ? `${label} per day over the last ${days.length} days: none.`
      : `${label} per day over the last ${days.length} days: ${show(total)} in all, the most ${show(max)} on ${peak ? formatDay(peak.date) : ''}.`;
  return (
    <figure class="chart">
      <div class="chart-area">
        <div class="chart-scale" aria-hidden="true">
          <span>{show(max)}</span>
          <span>{show(0)}</span>
        </div>
        <svg role="img" aria-label={summary} viewBox={`0 0 ${days.length * BAR} ${HEIGHT}`} preserveAspectRatio="none">
          <line class="chart-base" x1="0" x2={days.length * BAR} y1={HEIGHT} y2={HEIGHT} />
          {days.map((d, i) => {
            const value = values[i] ?? 0;
            const h = max === 0 || value === 0 ? 0 : Math.max(2, (value / max) * (HEIGHT - 4));
            return (
              <g key={d.date} class={d.date === today ? 'bar today' : 'bar'}>
                <title>{describeDay(d)}</title>
                <rect class="bar-hit" x={i * BAR} y="0" width={BAR} height={HEIGHT} />
                <rect class="bar-fill" x={i * BAR + 1.5} y={HEIGHT - h} width={BAR - 3} height={h} />
              </g>
            );
          })}
        </svg>
        <div class="chart-days" aria-hidden="true">
          <span>{days[0] && formatDay(days[0].date)}</span>
          <span>Today</span>
        </div>
      </div>
      <figcaption>{summary}</figcaption>
    </figure>
  );
}
