import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { adminCommands } from '#accounts/admin-commands.js';
import { startLocalStack } from '#local/stack.js';
import type { WebManifest } from '#pages/model.js';
import { createDynamoDb } from '#platform/aws/clients.js';
import { readEnv } from '#platform/config/env.js';
import { launchChromium } from '../../test/browser/support/browser.js';
import { webBuild } from '../../web/build.js';
import { runBenchProcess } from '../support/bench-process.js';
import { fmtKb, lineWriter, log, mark, ms, passFail, times } from '../support/format.js';
import type { Running } from '../support/local-stack.js';
import { type Spread, spread } from '../support/stats.js';

/**
 * Section 10: the console as a person meets it. Its bytes (the script and
 * stylesheet the page loads, as the deployed functions serve them:
 * brotli and gzip beside the raw size; the reference page's renderer for
 * context), and the time from opening the console with a live session to
 * its run list on screen, in Debian's Chromium against a local stack,
 * against the floor measured in the same run: the same two API calls the
 * console makes before it can show the list (mint its token through the
 * session, list the runs), made back to back from Node.
 */

/** The console's own script and stylesheet, gzip-compressed. */
export const CONSOLE_BUDGET_GZIP_KB = 30;
/** Opening the console to its run list, against the API calls it has to wait for. */
export const FIRST_LIST_BUDGET_RATIO = 4;

export interface AssetSize {
  path: string;
  raw: number;
  gzip: number;
  br: number;
}

export interface ConsoleResults {
  console: AssetSize[];
  reference: AssetSize[];
  consoleGzip: number;
  runsListed: number;
  samples: number;
  /** Opening `/` with a session cookie (no token in memory: the page mints one) until the first run row is visible. */
  firstList: Spread;
  /** Mint through the session, then `GET /v2/runs?limit=20`, from Node: what the page cannot do without. */
  apiFloor: Spread;
  /** `firstList` median over `apiFloor` median. */
  ratio: number;
}

function sizesOf(dir: string, manifest: WebManifest, pattern: RegExp): AssetSize[] {
  return Object.entries(manifest.files)
    .filter(([path]) => pattern.test(path))
    .map(([path, file]) => ({
      path,
      raw: statSync(join(dir, file.file)).size,
      gzip: statSync(join(dir, `${file.file}.gz`)).size,
      br: statSync(join(dir, `${file.file}.br`)).size,
    }));
}

async function json(response: Response): Promise<Record<string, unknown>> {
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${response.url}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** A pro account with `runs` completed runs of `local/echo`, and its session cookie. */
async function seed(url: string, runs: number): Promise<{ email: string; password: string; cookie: string }> {
  const email = `bench-${randomUUID()}@example.com`;
  const password = `pw-${randomUUID()}`;
  const env = readEnv();
  const table = { db: createDynamoDb(env), tableName: env.tableName };
  const created = await adminCommands(table)['account:create']({ email, password, plan: 'pro', 'balance-usd': '10' });
  await adminCommands(table)['account:set-limits']({ 'account-id': created.account_id, rps: '500' });
  const login = await fetch(`${url}/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const cookie = login.headers
    .getSetCookie()
    .find((c) => c.startsWith('session='))!
    .split(';')[0]!;
  const { token } = (await json(
    await fetch(`${url}/v1/api-tokens`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookie }, body: '{}' }),
  )) as { token: string };
  const call = async (path: string, body: unknown) =>
    json(
      await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, 'Idempotency-Key': randomUUID() },
        body: JSON.stringify(body),
      }),
    );
  const files = [
    { path: 'harness.json', content: JSON.stringify({ model: 'local/echo', instructions: 'prompt.md' }) },
    { path: 'prompt.md', content: 'Answer in one line.' },
  ];
  const harness = await call('/v2/harnesses', { name: 'bench echo', files });
  const machine = await call('/v1/machines', { name: 'bench machine' });
  for (let i = 0; i < runs; i++) await call('/v2/runs', { harness_id: harness.id, machine_id: machine.id, input: `hello ${i}` });
  return { email, password, cookie };
}

async function apiFloor(url: string, cookie: string): Promise<number> {
  const t0 = performance.now();
  const { token } = (await json(
    await fetch(`${url}/v1/api-tokens`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: cookie }, body: '{}' }),
  )) as { token: string };
  await json(await fetch(`${url}/v2/runs?limit=20`, { headers: { Authorization: `Bearer ${token}` } }));
  return performance.now() - t0;
}

async function firstList(browser: Browser, url: string, account: { email: string; password: string }): Promise<number> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.getByLabel('Email').fill(account.email);
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('a[href^="#/runs/"]').first().waitFor();
    // Timed: a fresh load with the session cookie and nothing in memory, as when a person opens the console again.
    const t0 = performance.now();
    await page.reload();
    await page.locator('a[href^="#/runs/"]').first().waitFor();
    return performance.now() - t0;
  } finally {
    await context.close();
  }
}

/** Section 10 in a process of its own (bench/console-process.ts): its stack's handlers keep their clients for the process's life. */
export const measureConsole = (work: string, samples: number): Promise<ConsoleResults> =>
  runBenchProcess<ConsoleResults>('console-process.ts', work, 'console', ['--samples', String(samples)]);

/** Section 10 here: a local stack of its own, then Chromium against it. */
export async function measureConsoleHere(samples: number, running: Running, runs = 20): Promise<ConsoleResults> {
  const dir = webBuild({ compress: true });
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as WebManifest;
  const consoleSizes = sizesOf(dir, manifest, /^\/assets\/console-/);
  const reference = sizesOf(dir, manifest, /^\/assets\/(scalar|docs)-/);
  log(`console: a local stack, ${runs} runs of local/echo, ${samples} loads in Chromium`);
  const stack = await startLocalStack({ port: 0 });
  running.add(stack.stop);
  const browser = await launchChromium();
  running.add(() => browser.close());
  try {
    const account = await seed(stack.url, runs);
    // One of each unmeasured first: the pages built, the handlers loaded.
    await firstList(browser, stack.url, account);
    await apiFloor(stack.url, account.cookie);
    const loads: number[] = [];
    const floors: number[] = [];
    for (let i = 0; i < samples; i++) {
      loads.push(await firstList(browser, stack.url, account));
      floors.push(await apiFloor(stack.url, account.cookie));
    }
    const firstListSpread = spread(loads);
    const floor = spread(floors);
    return {
      console: consoleSizes,
      reference,
      consoleGzip: consoleSizes.reduce((sum, s) => sum + s.gzip, 0),
      runsListed: runs,
      samples,
      firstList: firstListSpread,
      apiFloor: floor,
      ratio: firstListSpread.median / floor.median,
    };
  } finally {
    await running.stopAll();
  }
}

const sizePass = (r: ConsoleResults) => r.consoleGzip / 1024 <= CONSOLE_BUDGET_GZIP_KB;
const ratioPass = (r: ConsoleResults) => r.ratio <= FIRST_LIST_BUDGET_RATIO;

export function consoleSummary(r: ConsoleResults): string {
  return `Console: ${fmtKb(r.consoleGzip)} KB gzip (budget ${CONSOLE_BUDGET_GZIP_KB} KB, ${passFail(sizePass(r))}); opening it to its run list takes ${times(r.ratio)} the API calls it waits for (median ${ms(r.firstList.median)} against ${ms(r.apiFloor.median)}; budget ${FIRST_LIST_BUDGET_RATIO}×, ${passFail(ratioPass(r))}); see section 10.`;
}

export function renderConsoleSection(r: ConsoleResults, section = 10): string[] {
  const { lines, out } = lineWriter();
  out(`## ${section}. The console and the reference page`);
  out();
  out(
    `What a browser downloads, as the deployed page functions serve it (precompressed by web/build.ts at synthesis). Budget: the console's script and stylesheet ≤ ${CONSOLE_BUDGET_GZIP_KB} KB gzip together.`,
  );
  out();
  out('| File | Raw KB | gzip KB | brotli KB |');
  out('|---|---:|---:|---:|');
  for (const s of [...r.console, ...r.reference]) out(`| \`${s.path}\` | ${fmtKb(s.raw)} | ${fmtKb(s.gzip)} | ${fmtKb(s.br)} |`);
  out(
    `| **console total** | ${fmtKb(r.console.reduce((a, s) => a + s.raw, 0))} | **${fmtKb(r.consoleGzip)}** (${mark(sizePass(r))}) | ${fmtKb(r.console.reduce((a, s) => a + s.br, 0))} |`,
  );
  out();
  out(
    `The reference page (\`/docs\`) loads Scalar's standalone renderer (the \`scalar-*\` file), cached for a year at the edge by its content hash; the console does not load it.`,
  );
  out();
  out(
    `Time to the first run list: Debian's Chromium opens \`/\` with a live session and no token in memory (a reload, as when a person comes back), the console mints its token through the session and lists the account's ${r.runsListed} runs; timed until the first run's link is on screen, ${r.samples} times. The floor, in the same run: the same two calls (mint, \`GET /v2/runs?limit=20\`) made back to back from Node. Budget: ≤ ${FIRST_LIST_BUDGET_RATIO}× the floor (the page also loads its HTML, script and stylesheet and renders).`,
  );
  out();
  out('| Measurement | median | p95 | min | max |');
  out('|---|---:|---:|---:|---:|');
  out(`| open the console → first run listed | ${ms(r.firstList.median)} | ${ms(r.firstList.p95)} | ${ms(r.firstList.min)} | ${ms(r.firstList.max)} |`);
  out(`| _floor: mint + list from Node_ | ${ms(r.apiFloor.median)} | ${ms(r.apiFloor.p95)} | ${ms(r.apiFloor.min)} | ${ms(r.apiFloor.max)} |`);
  out();
  out(`Ratio of medians: **${times(r.ratio)}** (${mark(ratioPass(r))}).`);
  out();
  return lines;
}

export function consoleConsoleLines(r: ConsoleResults): string[] {
  return [
    '\nConsole:',
    `  bytes: ${r.console.map((s) => `${s.path} ${fmtKb(s.raw)} KB (${fmtKb(s.gzip)} gzip)`).join(', ')}; total ${fmtKb(r.consoleGzip)} KB gzip, budget ${CONSOLE_BUDGET_GZIP_KB}: ${passFail(sizePass(r))}`,
    `  first run list: median ${ms(r.firstList.median)}, p95 ${ms(r.firstList.p95)}; floor ${ms(r.apiFloor.median)}; ${times(r.ratio)}, budget ${FIRST_LIST_BUDGET_RATIO}×: ${passFail(ratioPass(r))}`,
  ];
}

export const consoleBudget = (r: ConsoleResults): string =>
  `  console: ${fmtKb(r.consoleGzip)} KB gzip ${passFail(sizePass(r))}; first run list ${times(r.ratio)} ${passFail(ratioPass(r))}`;
