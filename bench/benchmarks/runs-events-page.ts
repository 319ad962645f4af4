import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { appendEvents } from '#events/pages.js';
import { newRunId } from '#platform/ids.js';
import { keys } from '#platform/table/keys.js';
import { runEventLog } from '#runs/events.js';
import type { Run, RunEventData } from '#runs/model.js';
import { runsRepo } from '#runs/runs-repository.js';
import { runFixture } from '../../test/helpers/run-fixture.js';
import { purposeOf } from '../support/call-purpose.js';
import type { EngineStack } from '../support/engine-stack.js';
import { lineWriter, log, mark, ms, num, passFail, times } from '../support/format.js';
import { setRequestRate } from '../support/local-stack.js';
import { median, percentile, sum } from '../support/stats.js';

/**
 * Section 5.3: a page of a run's events (`GET /v2/runs/{id}/events`, JSON)
 * at a run of 10 000 events against a run of 100: the read units the page
 * costs and its latency, as ratios (budget ≤ 1.3x).
 */

export const PAGE_RATIO_BUDGET = 1.3;
const PAGE = 100;
const LONG = 10_000;
const SHORT = 100;

export interface PageCase {
  label: string;
  /** Read units per request (AWS rules), the authentication's included; and the events Query's alone. */
  readUnits: number;
  eventsQueryUnits: number;
  /** DynamoDB calls per request. */
  calls: number;
  /** Events the page held, and the seq range. */
  events: number;
  range: string;
  latencyMs: { median: number; p95: number };
  /** Against the short run's page (undefined for that page itself). */
  ratio?: { readUnits: number; latency: number; pass: boolean };
}

export interface EventsPageResult {
  samples: number;
  eventsPerPageItem: number;
  pageItemBytes: number;
  short: PageCase;
  long: PageCase[];
  /** Following next_cursor through the whole long run: read units per page. */
  walk: { pages: number; readUnits: { median: number; max: number }; eventsQueryUnits: { median: number; max: number } };
}

/**
 * The events a run's changes write, as pages: a model turn's page (its
 * message, the tool call it asked for, its usage) and the call's result in
 * a page of its own, the pattern of lib/runs/agent-loop.ts, so a page item
 * holds 1 to 3 events as it does in a real run.
 */
function pageOf(n: number): RunEventData[] {
  const text = `Step ${n}: the model reads the previous result and decides what to call next, as an agent does on a long task.`;
  return n % 2 === 0
    ? [
        { type: 'message', data: { role: 'assistant', text } },
        { type: 'tool_call', data: { call_id: `call_${n}`, name: 'tools__search', arguments: { query: `step ${n}`, limit: 10 } } },
        { type: 'usage', data: { input_tokens: 1_000 + n, output_tokens: 50, cost_micro_usd: 1_100 + n } },
      ]
    : [{ type: 'tool_result', data: { call_id: `call_${n - 1}`, name: 'tools__search', text: `${text} ${text}`, is_error: false } }];
}

/**
 * A completed run of the bench's account with `count` events, written
 * straight to DynamoDB Local: the run item and its first page with
 * `runsRepo.create`, every further page with `appendEvents` at its known
 * seq (a few at a time: each page is its own conditional put), then the
 * run's `event_seq`.
 */
async function runWithEvents(b: EngineStack, count: number): Promise<string> {
  const pages: RunEventData[][] = [];
  for (let n = 0, total = 0; total < count; n++) {
    const page = pageOf(n).slice(0, count - total);
    pages.push(page);
    total += page.length;
  }
  const at = new Date().toISOString();
  const run: Run = runFixture({
    id: newRunId(),
    account_id: b.accountId,
    status: 'completed',
    harness_id: 'h_bench',
    machine_id: 'mch_bench',
    input: 'a long task',
    output: 'done',
    harness: { model: 'local/script', instructions: 'prompt.md', max_turns: 50, tools: [], mcp_servers: [] },
    created_at: at,
    started_at: at,
    completed_at: at,
  });
  if (!(await runsRepo(b.direct).create(run, pages[0]!, []))) throw new Error('the events-page run could not be created');
  const log = runEventLog(b.direct, run.id);
  const firsts: number[] = [];
  for (let i = 1, seq = pages[0]!.length + 1; i < pages.length; seq += pages[i]!.length, i++) firsts.push(seq);
  const CONCURRENCY = 16;
  for (let i = 1; i < pages.length; i += CONCURRENCY) {
    await Promise.all(pages.slice(i, i + CONCURRENCY).map((page, j) => appendEvents(log, page, firsts[i - 1 + j])));
  }
  await b.direct.db.send(
    new UpdateCommand({
      TableName: b.direct.tableName,
      Key: keys.run(run.id),
      UpdateExpression: 'SET event_seq = :seq',
      ExpressionAttributeValues: { ':seq': count },
    }),
  );
  return run.id;
}

interface PageAnswer {
  status: number;
  data: Array<{ seq: number }>;
  next: string | null;
  ms: number;
  readUnits: number;
  eventsQueryUnits: number;
  calls: number;
}

/** One `GET /v2/runs/{id}/events` as a client sends it, with the DynamoDB calls it made (requests go one at a time, so the calls after it started are its own). */
async function getPage(b: EngineStack, runId: string, cursor?: string): Promise<PageAnswer> {
  const query = `limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const before = b.ddb.calls.length;
  const t0 = performance.now();
  const response = await fetch(`${b.stack.url}/v2/runs/${runId}/events?${query}`, {
    headers: { authorization: `Bearer ${b.token}`, accept: 'application/json' },
  });
  const body = (await response.json()) as { data?: Array<{ seq: number }>; page?: { next_cursor: string | null } };
  const elapsed = performance.now() - t0;
  const calls = b.ddb.calls.slice(before).filter((c) => c.kind === 'read');
  return {
    status: response.status,
    data: body.data ?? [],
    next: body.page?.next_cursor ?? null,
    ms: elapsed,
    readUnits: sum(calls.map((c) => c.awsUnits)),
    eventsQueryUnits: sum(calls.filter((c) => purposeOf(c).startsWith('eventsAfter')).map((c) => c.awsUnits)),
    calls: calls.length,
  };
}

const caseOf = (label: string, answers: PageAnswer[]): PageCase => {
  const first = answers[0]!;
  const seqs = first.data.map((e) => e.seq);
  return {
    label,
    readUnits: median(answers.map((a) => a.readUnits)),
    eventsQueryUnits: median(answers.map((a) => a.eventsQueryUnits)),
    calls: median(answers.map((a) => a.calls)),
    events: first.data.length,
    range: seqs.length ? `${seqs[0]}–${seqs.at(-1)}` : 'none',
    latencyMs: {
      median: median(answers.map((a) => a.ms)),
      p95: percentile(
        answers.map((a) => a.ms),
        95,
      ),
    },
  };
};

/**
 * Writes a run of 10 000 events and one of 100, follows the long run's
 * cursors page by page (every page's read units), then requests the short
 * run's page, the long run's first page and its last page (from the cursor
 * the walk ended on) `samples` times each, interleaved, after one
 * unrecorded request of each.
 */
export async function measureEventsPage(b: EngineStack, samples: number): Promise<EventsPageResult> {
  b.ddb.configure({ sizing: false });
  log(`runs: events page, a run of ${LONG} events against one of ${SHORT}, pages of ${PAGE}`);
  // The runs are made and the pages asked for back to back, right after the cost section's requests, past a pro
  // account's 20 requests per second: what is measured is the page.
  await setRequestRate(b.direct, b.accountId, 100);
  try {
    const [longRun, shortRun] = [await runWithEvents(b, LONG), await runWithEvents(b, SHORT)];
    return await pagesOf(b, longRun, shortRun, samples);
  } finally {
    await setRequestRate(b.direct, b.accountId, undefined);
  }
}

/** Walks the long run's pages, then samples the three cases (measureEventsPage). */
async function pagesOf(b: EngineStack, longRun: string, shortRun: string, samples: number): Promise<EventsPageResult> {
  const walk: PageAnswer[] = [];
  let cursor: string | undefined;
  let lastCursor: string | undefined;
  for (;;) {
    const answer = await getPage(b, longRun, cursor);
    if (answer.status !== 200) throw new Error(`GET /v2/runs/{id}/events answered ${answer.status}`);
    walk.push(answer);
    if (!answer.next || answer.data.length === 0) break;
    if (answer.data.at(-1)!.seq < LONG) lastCursor = answer.next;
    cursor = answer.next;
  }
  const walked = walk.flatMap((a) => a.data).length;
  if (walked !== LONG) throw new Error(`following the cursors gave ${walked} events, not ${LONG}`);

  const cases: Array<{ runId: string; cursor?: string; answers: PageAnswer[] }> = [
    { runId: shortRun, answers: [] },
    { runId: longRun, answers: [] },
    { runId: longRun, cursor: lastCursor, answers: [] },
  ];
  for (const c of cases) await getPage(b, c.runId, c.cursor);
  for (let i = 0; i < samples; i++) {
    for (const c of cases) {
      const answer = await getPage(b, c.runId, c.cursor);
      if (answer.status !== 200) throw new Error(`GET /v2/runs/{id}/events answered ${answer.status}`);
      c.answers.push(answer);
    }
  }
  const short = caseOf(`run of ${SHORT.toLocaleString('en-US')} events, its page`, cases[0]!.answers);
  const withRatio = (pc: PageCase): PageCase => {
    const readUnits = pc.readUnits / short.readUnits;
    const latency = pc.latencyMs.median / short.latencyMs.median;
    return { ...pc, ratio: { readUnits, latency, pass: readUnits <= PAGE_RATIO_BUDGET && latency <= PAGE_RATIO_BUDGET } };
  };
  return {
    samples,
    eventsPerPageItem: (pageOf(0).length + pageOf(1).length) / 2,
    pageItemBytes: Buffer.byteLength(JSON.stringify(pageOf(0))),
    short,
    long: [
      withRatio(caseOf(`run of ${LONG.toLocaleString('en-US')} events, first page`, cases[1]!.answers)),
      withRatio(caseOf(`run of ${LONG.toLocaleString('en-US')} events, last page (its cursor)`, cases[2]!.answers)),
    ],
    walk: {
      pages: walk.length,
      readUnits: { median: median(walk.map((a) => a.readUnits)), max: Math.max(...walk.map((a) => a.readUnits)) },
      eventsQueryUnits: { median: median(walk.map((a) => a.eventsQueryUnits)), max: Math.max(...walk.map((a) => a.eventsQueryUnits)) },
    },
  };
}

const failing = (r: EventsPageResult) => r.long.filter((c) => !c.ratio?.pass);

export function renderEventsPageSection(r: EventsPageResult, section: number): string[] {
  const { lines, out } = lineWriter();
  out(`### ${section}.3 Events page at 10 000 events against 100`);
  out();
  out(
    `Budget: a page of ${PAGE} at a run of ${LONG.toLocaleString('en-US')} events costs at most ${PAGE_RATIO_BUDGET}× a page at a run of ${SHORT}, in read units and in median latency.`,
  );
  out();
  out(
    '| Page of 100 (`GET /v2/runs/{id}/events`, JSON) | Events (seqs) | DynamoDB calls | RRU per request | of which the events Query | Latency median | p95 | **RRU ÷ short run’s** | **Latency ÷ short run’s** | Budget |',
  );
  out('|---|---|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const c of [r.short, ...r.long]) {
    out(
      `| ${c.label} | ${c.events} (${c.range}) | ${num(c.calls, 0)} | ${num(c.readUnits, 1)} | ${num(c.eventsQueryUnits, 1)} | ${ms(c.latencyMs.median)} | ${ms(c.latencyMs.p95)} | ${c.ratio ? `**${times(c.ratio.readUnits)}**` : '1.00×'} | ${c.ratio ? `**${times(c.ratio.latency)}**` : '1.00×'} | ${c.ratio ? mark(c.ratio.pass) : ''} |`,
    );
  }
  out(
    `| every page of the ${LONG.toLocaleString('en-US')}-event run, following \`next_cursor\` (${r.walk.pages} requests) | ${PAGE} each | | median ${num(r.walk.readUnits.median, 1)}, max ${num(r.walk.readUnits.max, 1)} | median ${num(r.walk.eventsQueryUnits.median, 1)}, max ${num(r.walk.eventsQueryUnits.max, 1)} | | | max ${times(r.walk.readUnits.max / r.short.readUnits)} | | ${mark(r.walk.readUnits.max / r.short.readUnits <= PAGE_RATIO_BUDGET)} |`,
  );
  out();
  out(
    `**How measured.** Two completed runs of the bench's account are written straight to DynamoDB Local: the run item and its first page with \`runsRepo(table).create\`, then one \`appendEvents\` (lib/events/pages.ts) per further page on the run's log (\`runEventLog\`), each at its known seq, and the run's \`event_seq\`. Pages hold what the agent loop's changes write, alternately a model turn's message, tool call and usage and a tool result on its own (${num(r.eventsPerPageItem, 1)} events per page item, ${r.pageItemBytes} bytes of events in a 3-event page), so ${LONG.toLocaleString('en-US')} events are about ${Math.round(LONG / r.eventsPerPageItem).toLocaleString('en-US')} page items. Every request goes through the local gateway to the real handler (functions/runs/events.ts) with the bearer token and \`Accept: application/json\`, one at a time, so the DynamoDB calls the proxy saw after a request started are that request's: the bearer authentication's BatchGetItem, the run's GetItem and the events Query (\`eventsAfter\`, bounded to the pages that hold the ${PAGE} events wanted). Read units are AWS's rules from the item sizes DynamoDB Local reported (strongly consistent: 1 RRU per 4 KB a Query reads). The three pages were each requested ${r.samples} times, interleaved, after one unrecorded request each; the long run's last page is asked for with the \`next_cursor\` its previous page gave while the whole run was followed from its first page, whose ${r.walk.pages} requests give the last row. Latency is the request's wall time at the client, on this machine.`,
  );
  out();
  return lines;
}

export const eventsPageSummary = (r: EventsPageResult): string => {
  const over = failing(r);
  return `Run events page of ${PAGE} at ${LONG.toLocaleString('en-US')} events against ${SHORT} (≤ ${PAGE_RATIO_BUDGET}×, read units and median latency): ${over.length ? `**${over.length} of ${r.long.length} FAIL**` : `pass`}: ${r.long
    .map(
      (c) =>
        `${c.label.replace(/^run of [\d,]+ events, /, '')} ${num(c.readUnits, 1)} RRU against ${num(r.short.readUnits, 1)} = ${times(c.ratio!.readUnits)}, ${ms(c.latencyMs.median)} against ${ms(r.short.latencyMs.median)} = ${times(c.ratio!.latency)}`,
    )
    .join('; ')}`;
};

export const eventsPageConsoleLines = (r: EventsPageResult): string[] => [
  `Run events page of ${PAGE}, ${LONG} events against ${SHORT} (budget ≤ ${PAGE_RATIO_BUDGET}×):`,
  ...[r.short, ...r.long].map(
    (c) =>
      `  ${c.label.padEnd(46)} ${num(c.readUnits, 1).padStart(5)} RRU  ${ms(c.latencyMs.median).padStart(9)}${c.ratio ? `  ${times(c.ratio.readUnits)} / ${times(c.ratio.latency)}  ${passFail(c.ratio.pass)}` : ''}`,
  ),
];

export const eventsPageBudget = (r: EventsPageResult): string =>
  `  events page   ${failing(r).length ? `FAIL (${failing(r).length} of ${r.long.length} pages over ${PAGE_RATIO_BUDGET}×)` : `pass (${r.long.length} of ${r.long.length})`}`;
