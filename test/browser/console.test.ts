import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { CONSOLE_CSP } from '../../web/build.js';
import { jsonCaller } from '../helpers/api.js';
import { startMcpServer, type TestMcpServer } from '../helpers/mcp-server.js';
import { newMachine } from '../helpers/runs.js';
import { createAccount, login, mintToken } from '../helpers/stack.js';
import { type ConsoleStack, launchChromium, type PageWatch, screenshot, startConsoleStack, watchPage } from './support/browser.js';

// The handlers and workers run in this process and read these on every call: the test MCP server is on 127.0.0.1 over http:.
process.env.OUTBOUND_ALLOWED_HOSTS = '127.0.0.1';
process.env.OUTBOUND_ALLOW_INSECURE = 'true';

let stack: ConsoleStack;
let browser: Browser;
let mcp: TestMcpServer;
/** Signed in once (the session cookie lives in the context); each page mints its own token through it. */
let signedIn: BrowserContext;
/** A token of the test's own, for the setup the console does not do (harnesses with tools, runs started by a program). */
let token: string;
/** The one machine of the tests' runs (a pro plan has three). */
let machineId: string;
const watches: PageWatch[] = [];

const call = jsonCaller(() => stack.url);
const post = async (path: string, body: unknown) => {
  const answer = await call('POST', path, token, body, { 'Idempotency-Key': randomUUID() });
  if (answer.status >= 300) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
};

async function harness(config: Record<string, unknown>): Promise<string> {
  const files = [
    { path: 'harness.json', content: JSON.stringify({ model: 'local/script', instructions: 'prompt.md', ...config }) },
    { path: 'prompt.md', content: 'You are a test agent.' },
  ];
  return (await post('/v2/harnesses', { name: `h ${randomUUID().slice(0, 6)}`, files })).id;
}

/** A page of `context`, watched for errors and requests to other origins. */
async function open(context: BrowserContext, hash = ''): Promise<Page> {
  const page = await context.newPage();
  watches.push(watchPage(page, stack.url));
  await page.goto(`${stack.url}/${hash}`);
  return page;
}

/** A page of the signed-in context: the console mints its token through the session, then shows the route. */
async function openSignedIn(hash: string, heading: string | RegExp): Promise<Page> {
  const page = await open(signedIn, hash);
  await page.getByRole('heading', { name: heading, level: 2 }).waitFor();
  return page;
}

async function signIn(page: Page, password = stack.password, email = stack.email): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const statusLine = (page: Page, status: string) => page.getByRole('status').filter({ hasText: new RegExp(`^Status\\s*${status}`) });

beforeAll(async () => {
  [stack, browser, mcp] = await Promise.all([startConsoleStack(), launchChromium(), startMcpServer()]);
  const cookie = await login(stack.url, stack);
  token = (await mintToken(stack.url, cookie, { name: 'browser test setup' })).token;
  machineId = await newMachine(call, token);
  signedIn = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await open(signedIn);
  await signIn(page);
  await page.getByRole('heading', { name: 'Runs', level: 2 }).waitFor();
  await page.close();
});

afterAll(async () => {
  mcp?.slow.release();
  await browser?.close();
  await Promise.all([stack?.close(), mcp?.stop()]);
});

describe('signing in', () => {
  test('a wrong password says so; the right one opens the console, with its token in memory only', async () => {
    // Prepare
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await open(context);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await screenshot(page, 'console-sign-in');

    // Act
    await signIn(page, 'not-the-password');
    const wrong = page.getByRole('alert').filter({ hasText: 'Wrong email or password.' });
    await wrong.waitFor();
    await screenshot(page, 'console-sign-in-wrong-password');
    await signIn(page);

    // Assert
    await page.getByRole('heading', { name: 'Runs', level: 2 }).waitFor();
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('heading', { name: 'Tokens', level: 2 }).waitFor();
    await page.getByRole('row').filter({ hasText: 'this console' }).waitFor();
    const storage = await page.evaluate('({ local: localStorage.length, session: sessionStorage.length, cookie: document.cookie })');
    expect(storage).toEqual({ local: 0, session: 0, cookie: '' });
    await context.close();
  });

  test('signing out revokes the console’s token and ends the session: a reload shows the sign-in page', async () => {
    // Prepare
    const context = await browser.newContext();
    const page = await open(context);
    await signIn(page);
    await page.getByRole('heading', { name: 'Runs', level: 2 }).waitFor();

    // Act
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('alert').filter({ hasText: 'You have signed out.' }).waitFor();
    await page.reload();

    // Assert
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await context.close();
  });

  test('a token that stops working returns to the sign-in page with “Your session has ended.”', async () => {
    // Prepare: a session whose cookie is gone, so the console cannot mint again either.
    const context = await browser.newContext();
    const page = await open(context);
    await signIn(page);
    await page.getByRole('heading', { name: 'Runs', level: 2 }).waitFor();
    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByRole('row').filter({ hasText: 'this console' }).waitFor();
    await context.clearCookies();

    // Act: revoking the console's own token, the console's next call is refused.
    await page.getByRole('row').filter({ hasText: 'this console' }).getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
    await page.getByRole('link', { name: 'Usage' }).click();

    // Assert
    await page.getByRole('alert').filter({ hasText: 'Your session has ended. Sign in again.' }).waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await context.close();
  });

  test('an account that may not mint (free plan) is told the API’s reason on the sign-in page', async () => {
    // Prepare
    const free = await createAccount(stack.table, { plan: 'free', balanceUsd: 10 });
    const context = await browser.newContext();
    const page = await open(context);

    // Act
    await signIn(page, free.password, free.email);

    // Assert
    await page.getByRole('alert').filter({ hasText: 'API tokens require a paid plan; the account is on the free plan.' }).waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await context.close();
  });
});

describe('tokens', () => {
  test('mint: the token is shown once with a copy button, works, is listed, and revoked stops working', async () => {
    // Prepare
    const page = await openSignedIn('#/tokens', 'Tokens');
    const name = `ci ${randomUUID().slice(0, 6)}`;

    // Act
    await page.getByLabel('Token name').fill(name);
    await page.getByRole('button', { name: 'Mint token' }).click();

    // Assert: shown once
    const shown = page.getByRole('textbox', { name: 'Your new token' });
    await shown.waitFor();
    const minted = await shown.inputValue();
    expect(minted.length).toBeGreaterThan(20);
    await page.getByText('it will not be shown again').waitFor();
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    await screenshot(page, 'console-tokens-minted');
    expect((await call('GET', '/v1/api-tokens', minted)).status).toBe(200);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByRole('textbox', { name: 'Your new token' }).count()).toBe(0);
    const row = page.getByRole('row').filter({ hasText: name });
    await row.waitFor();
    await screenshot(page, 'console-tokens');

    // Act: revoke, confirmed
    await row.getByRole('button', { name: 'Revoke' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this token?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Revoke token' }).click();

    // Assert
    await row.waitFor({ state: 'detached' });
    expect((await call('GET', '/v1/api-tokens', minted)).status).toBe(401);
    await page.close();
  });
});

describe('runs', () => {
  test('“New run” starts a local/echo run, and its page follows it live to its output', async () => {
    // Prepare
    const harnessId = (
      await post('/v2/harnesses', {
        name: 'Echo for the console',
        files: [
          { path: 'harness.json', content: JSON.stringify({ model: 'local/echo', instructions: 'prompt.md' }) },
          { path: 'prompt.md', content: 'Echo.' },
        ],
      })
    ).id;
    const page = await openSignedIn('#/runs', 'Runs');

    // Act
    await page.getByRole('button', { name: 'New run' }).click();
    const form = page.getByRole('form', { name: 'New run' });
    await form.getByLabel('Harness').selectOption(harnessId);
    await form.getByLabel('Machine').selectOption(machineId);
    await form.getByLabel('Input', { exact: true }).fill('hello from the console');
    await form.getByRole('button', { name: 'Start run' }).click();

    // Assert
    await page.waitForURL(/#\/runs\/run_/);
    await page.getByRole('heading', { name: /^Run run_/, level: 2 }).waitFor();
    await statusLine(page, 'completed').waitFor();
    await page.locator('pre.output').filter({ hasText: 'hello from the console' }).waitFor();
    const events = page.getByRole('list', { name: 'Run events' });
    await events.getByText('Assistant').waitFor();
    await events.getByText('completed').waitFor();
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    await screenshot(page, 'console-run-completed');

    await page.getByRole('link', { name: '← Runs' }).click();
    await page.getByRole('heading', { name: 'Runs', level: 2 }).waitFor();
    await page.getByRole('row').filter({ hasText: 'Echo for the console' }).getByText('completed').waitFor();
    await screenshot(page, 'console-runs');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'console-runs-phone');
    await page.close();
  });

  test('an approval-gated tool call is approved from the run’s page, and the run goes on to its end', async () => {
    // Prepare
    const harnessId = await harness({ mcp_servers: [{ name: 'srv', url: mcp.url('/json') }], tools: [{ name: 'srv__echo', require_approval: true }] });
    const run = await post('/v2/runs', {
      harness_id: harnessId,
      machine_id: machineId,
      input: { steps: [{ tool: 'srv__echo', arguments: { text: 'approved in the browser' } }] },
    });
    const page = await openSignedIn(`#/runs/${run.id}`, /^Run run_/);

    // Act
    const approval = page.getByRole('listitem', { name: 'Approval needed' });
    await approval.getByText('srv__echo').waitFor();
    await statusLine(page, 'waiting').waitFor();
    await screenshot(page, 'console-run-approval');
    await approval.getByRole('button', { name: 'Approve' }).click();

    // Assert
    await statusLine(page, 'completed').waitFor();
    await page.locator('pre.output').filter({ hasText: 'echo: approved in the browser' }).waitFor();
    const events = page.getByRole('list', { name: 'Run events' });
    await events.getByText('Tool result').waitFor();
    expect(await page.getByRole('listitem', { name: 'Approval needed' }).count()).toBe(0);
    await screenshot(page, 'console-run-events');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'console-run-phone');
    await page.close();
  });

  test('a question (ask_user) is answered from the run’s page, and the answer is the tool’s result', async () => {
    // Prepare
    const harnessId = await harness({});
    const run = await post('/v2/runs', {
      harness_id: harnessId,
      machine_id: machineId,
      input: { steps: [{ tool: 'ask_user', arguments: { question: 'Which colour?' } }] },
    });
    const page = await openSignedIn(`#/runs/${run.id}`, /^Run run_/);

    // Act
    const question = page.getByRole('listitem', { name: 'Question' });
    await question.getByText('Which colour?').waitFor();
    await question.getByLabel('Your answer').fill('blue');
    await question.getByRole('button', { name: 'Send answer' }).click();

    // Assert
    await statusLine(page, 'completed').waitFor();
    await page
      .locator('pre.output')
      .filter({ hasText: /^blue$/ })
      .waitFor();
    await page.close();
  });

  test('“Cancel run” ends a running run', async () => {
    // Prepare: a tool call that does not answer until released keeps the run running.
    mcp.slow.rearm();
    const harnessId = await harness({ mcp_servers: [{ name: 'slow', url: mcp.url('/slow') }] });
    const run = await post('/v2/runs', {
      harness_id: harnessId,
      machine_id: machineId,
      input: { steps: [{ tool: 'slow__slow', arguments: { text: 'x' } }] },
    });
    const page = await openSignedIn(`#/runs/${run.id}`, /^Run run_/);
    await statusLine(page, 'running').waitFor();
    await vi.waitFor(() => expect(mcp.slow.calls).toBe(1), { timeout: 20_000, interval: 50 });

    // Act
    await page.getByRole('button', { name: 'Cancel run' }).click();

    // Assert
    await statusLine(page, 'cancelled').waitFor();
    await page.getByRole('list', { name: 'Run events' }).getByText('cancelled').waitFor();
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    expect((await call('GET', `/v2/runs/${run.id}`, token)).body.status).toBe('cancelled');
    mcp.slow.release();
    await page.close();
  });

  test('an answer is shown as it is written (message.delta), then as the message; cancelled mid-answer, its draft goes', async () => {
    // Prepare: replies written a word every 300 ms.
    const harnessId = await harness({});
    const slow = (reply: string) => ({ harness_id: harnessId, machine_id: machineId, input: { steps: [{ reply, delay_ms: 300 }] } });
    const answer = 'one two three four five six seven eight';
    const run = await post('/v2/runs', slow(answer));
    const page = await openSignedIn(`#/runs/${run.id}`, /^Run run_/);
    const events = page.getByRole('list', { name: 'Run events' });
    const draft = page.locator('.event-draft');

    // Act, assert: words appear before the answer is complete, then the message holds all of it.
    await draft.getByText(/^one two/).waitFor();
    expect(await draft.textContent()).not.toContain('eight');
    await statusLine(page, 'completed').waitFor();
    await events.getByText(answer).first().waitFor();
    await expect.poll(() => draft.count()).toBe(0);

    // Act, assert: a run cancelled in the middle of its answer leaves no draft behind.
    const cut = await post('/v2/runs', slow('a long answer that will never be finished because it is cancelled'));
    await page.goto(`${stack.url}/#/runs/${cut.id}`);
    await draft.getByText(/^a long/).waitFor();
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await statusLine(page, 'cancelled').waitFor();
    await expect.poll(() => draft.count()).toBe(0);
    await page.close();
  });

  test('the runs list filters by status and pages with “Load more”', async () => {
    // Prepare: more runs than a page holds (20).
    const harnessId = (
      await post('/v2/harnesses', {
        name: 'Many runs',
        files: [
          { path: 'harness.json', content: JSON.stringify({ model: 'local/echo', instructions: 'prompt.md' }) },
          { path: 'prompt.md', content: 'Echo.' },
        ],
      })
    ).id;
    for (let i = 0; i < 21; i++) await post('/v2/runs', { harness_id: harnessId, machine_id: machineId, input: `run ${i}` });
    const page = await openSignedIn('#/runs', 'Runs');

    // Act
    await page.getByLabel('Harness').selectOption({ label: 'Many runs' });
    await page.getByRole('button', { name: 'Load more' }).click();

    // Assert: 21 rows of runs, plus the header row.
    await vi.waitFor(async () => expect(await page.getByRole('row').count()).toBe(22), { timeout: 10_000 });
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    await page.getByLabel('Status').selectOption('cancelled');
    await page.getByText('No run matches these filters.').waitFor();
    await page.close();
  });
});

describe('usage', () => {
  test('the windows, the wallet and today’s runs in the daily activity chart', async () => {
    // Prepare: the runs above ran today.
    const page = await openSignedIn('#/usage', 'Usage');

    // Act
    await page.getByRole('heading', { name: '5-hour window' }).waitFor();
    await page.getByRole('heading', { name: 'Weekly window' }).waitFor();
    await page.getByRole('heading', { name: 'Wallet' }).waitFor();
    await page.getByText('Daily activity as a table').click();

    // Assert
    const today = page.getByRole('row').filter({ hasText: 'today' });
    const runs = Number(await today.getByRole('cell').nth(1).textContent());
    expect(runs).toBeGreaterThanOrEqual(3);
    await page.getByRole('radio', { name: 'Runs' }).check();
    const chart = page.getByRole('img', { name: /^Runs per day over the last 30 days: \d+ in all/ });
    await chart.waitFor();
    expect(await page.locator('svg .bar.today title').textContent()).toMatch(new RegExp(`${runs} runs`));
    await page.getByRole('radio', { name: 'Cost' }).check();
    await screenshot(page, 'console-usage');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'console-usage-dark', { fullPage: false });
    await page.close();
  });
});

describe('the page', () => {
  test('GET / carries the Content-Security-Policy; nothing was asked of another origin and nothing was reported', async () => {
    // Act
    const response = await fetch(`${stack.url}/`);

    // Assert
    expect(response.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) {
      expect(CONSOLE_CSP).toContain(directive);
    }
    expect(watches.length).toBeGreaterThan(5);
    expect(watches.flatMap((w) => w.foreignRequests)).toEqual([]);
    // The 401s and the 403 the console meets on purpose (minting without a session, a wrong password, a revoked token, a free plan) are logged by Chromium as failed loads.
    const errors = watches.flatMap((w) => w.errors).filter((e) => !/Failed to load resource: the server responded with a status of (401|403)/.test(e));
    expect(errors).toEqual([]);
  });
});
