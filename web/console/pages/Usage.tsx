import type { Schemas } from '@workflow-service/client';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { ActivityChart, METRICS, type Metric } from '../components/ActivityChart';
import { Problem } from '../components/Problem';
import { Status } from '../components/Status';
import { Table } from '../components/Table';
import { Time } from '../components/Time';
import { formatCount, formatDay, formatPercent, usd } from '../format';

type Quota = Schemas['UsageQuota'];
type Day = Schemas['DailyActivityEntry'];

const WINDOW_NAME = { '5h': '5-hour window', week: 'Weekly window' } as const;
const FUNDING = {
  plan: 'your plan’s allowance',
  extra: 'your wallet (extra usage), a window being full',
  blocked: 'nothing: a window is full and extra usage is off',
} as const;

function Windows({ quota }: { quota: Quota }) {
  return (
    <div class="cards">
      {quota.windows.map((w) => (
        <article class="card" key={w.kind} aria-labelledby={`window-${w.kind}`}>
          <h3 id={`window-${w.kind}`}>{WINDOW_NAME[w.kind]}</h3>
          <p>
            <Status value={w.status} />
          </p>
          {w.used_percent === undefined ? (
            <p class="muted">The window could not be read just now.</p>
          ) : (
            <>
              <meter min={0} max={100} low={75} high={90} optimum={0} value={w.used_percent} aria-labelledby={`window-${w.kind}`} />
              <p>
                <strong>{formatPercent(w.used_percent)}</strong> of the allowance used
              </p>
            </>
          )}
          <p class="muted">
            {w.resets_at ? (
              <>
                Resets <Time value={w.resets_at} />
              </>
            ) : (
              `A window lasts ${w.kind === '5h' ? '5 hours' : 'a week'} from the first usage in it.`
            )}
          </p>
        </article>
      ))}
      <article class="card" aria-labelledby="wallet-title">
        <h3 id="wallet-title">Wallet</h3>
        <p class="big">{usd(quota.extra.wallet_micro_usd)}</p>
        <p class="muted">
          Extra usage is {quota.extra.enabled ? 'on' : 'off'}
          {quota.extra.enabled && `; ${usd(quota.extra.spent_micro_usd_this_cycle)} spent past the windows this month`}.
        </p>
        <p>
          The next run or request is funded by {FUNDING[quota.mode]}
          {quota.retry_after_seconds ? ` (for about ${Math.ceil(quota.retry_after_seconds / 60)} more minutes)` : ''}.
        </p>
      </article>
    </div>
  );
}

function Activity({ days }: { days: Day[] }) {
  const [metric, setMetric] = useState<Metric>('cost');
  const today = new Date().toISOString().slice(0, 10);
  const totals = days.reduce((sum, d) => ({ cost: sum.cost + d.total_cost, runs: sum.runs + d.run_count, requests: sum.requests + d.request_count }), {
    cost: 0,
    runs: 0,
    requests: 0,
  });
  return (
    <>
      <p>
        Last {days.length} days (UTC): <strong>{usd(Math.round(totals.cost * 1_000_000))}</strong>, {formatCount(totals.runs)} runs,{' '}
        {formatCount(totals.requests)} workflow requests.
      </p>
      <fieldset class="segmented">
        <legend>Show</legend>
        {(Object.keys(METRICS) as Metric[]).map((m) => (
          <label key={m}>
            <input type="radio" name="metric" value={m} checked={metric === m} onChange={() => setMetric(m)} />
            {METRICS[m].label}
          </label>
        ))}
      </fieldset>
      <ActivityChart days={days} metric={metric} today={today} />
      <details>
        <summary>Daily activity as a table</summary>
        <Table
          caption="Daily activity, oldest first"
          rows={days.map((d) => ({ ...d, id: d.date }))}
          columns={[
            {
              label: 'Day',
              cell: (d) => (
                <>
                  <time dateTime={d.date}>{formatDay(d.date)}</time>
                  {d.date === today && <span class="tag">today</span>}
                </>
              ),
            },
            { label: 'Cost', num: true, cell: (d) => usd(Math.round(d.total_cost * 1_000_000)) },
            { label: 'Runs', num: true, cell: (d) => formatCount(d.run_count) },
            { label: 'Workflow requests', num: true, cell: (d) => formatCount(d.request_count) },
            { label: 'Node executions', num: true, cell: (d) => formatCount(d.node_count) },
          ]}
        />
      </details>
    </>
  );
}

/** Usage: the plan's windows, the wallet, and daily activity. */
export function UsagePage() {
  const [quota, setQuota] = useState<Quota>();
  const [days, setDays] = useState<Day[]>();
  const [error, setError] = useState<unknown>();
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    setError(undefined);
    api.GET('/v2/usage').then(({ data }) => setQuota(data), setError);
    api.GET('/v1/activity/daily', { params: { query: { days: 30 } } }).then(({ data }) => setDays(data.data), setError);
  }, [generation]);
  return (
    <section>
      <div class="heading-row">
        <h2>Usage</h2>
        <button type="button" class="secondary" onClick={() => setGeneration((g) => g + 1)}>
          Refresh
        </button>
      </div>
      <Problem error={error} />
      {quota ? <Windows quota={quota} /> : !error && <p class="muted">Loading…</p>}
      <h3>Daily activity</h3>
      {days ? <Activity days={days} /> : !error && <p class="muted">Loading…</p>}
    </section>
  );
}
