import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { jsonCaller } from '../helpers/api.js';
import { newMachine } from '../helpers/runs.js';
import { login, mintToken } from '../helpers/stack.js';
import { Receiver } from '../helpers/webhook-receiver.js';
import { type Api, apiFor, createVersion, node, runVersion, transform } from '../helpers/workflows.js';
import { type ConsoleStack, launchChromium, type PageWatch, screenshot, startConsoleStack, watchPage } from './support/browser.js';

// The handlers and workers run in this process and read these on every call: the receiver is on 127.0.0.1 over http:.
process.env.OUTBOUND_ALLOWED_HOSTS = '127.0.0.1';
process.env.OUTBOUND_ALLOW_INSECURE = 'true';

let stack: ConsoleStack;
let browser: Browser;
let signedIn: BrowserContext;
let token: string;
let api: Api;
const receiver = new Receiver();
const watches: PageWatch[] = [];
const call = jsonCaller(() => stack.url);

async function openSignedIn(hash: string, heading: string | RegExp): Promise<Page> {
  const page = await signedIn.newPage();
  watches.push(watchPage(page, stack.url));
  await page.goto(`${stack.url}/${hash}`);
  await page.getByRole('heading', { name: heading, level: 2 }).waitFor();
  return page;
}

const statusLine = (page: Page, status: string) => page.getByRole('status').filter({ hasText: new RegExp(`^Status\\s*${status}`) });

beforeAll(async () => {
  [stack, browser] = await Promise.all([startConsoleStack(), launchChromium(), receiver.start()]);
  token = (await mintToken(stack.url, await login(stack.url, stack), { name: 'browser test setup' })).token;
  api = apiFor(
    () => stack.url,
    () => token,
  );
  signedIn = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await signedIn.newPage();
  watches.push(watchPage(page, stack.url));
  await page.goto(`${stack.url}/`);
  await page.getByLabel('Email').fill(stack.email);
  await page.getByLabel('Password').fill(stack.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Runs', level: 2 }).waitFor();
  await page.close();
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([stack?.close(), receiver.stop()]);
});

describe('a new account', () => {
  test('“New run” offers an example harness and a machine when there are none, and the first run completes', async () => {
    // Prepare: this file's account has neither yet.
    const page = await openSignedIn('#/runs', 'Runs');
    await page.getByText('No runs yet').waitFor();

    // Act
    await page.getByRole('button', { name: 'New run' }).click();
    await page.getByRole('button', { name: 'Create an example harness (local/echo)' }).click();
    await page.getByRole('button', { name: 'Create a machine' }).click();
    await page.getByRole('button', { name: 'Create a machine' }).waitFor({ state: 'detached' });
    await page.getByLabel('Input', { exact: true }).fill('my first run');
    await page.getByRole('button', { name: 'Start run' }).click();

    // Assert
    await statusLine(page, 'completed').waitFor();
    await page.locator('pre.output').filter({ hasText: 'my first run' }).waitFor();
    await page.getByRole('term').filter({ hasText: 'Harness' }).waitFor();
    await page.getByText('Echo (example)').waitFor();
    await page.close();
  });
});

describe('workflow requests', () => {
  test('a request’s page shows its node executions live: an approval node answered in place, then the next node', async () => {
    // Prepare
    const version = await createVersion(
      api,
      [node('Ask first', 'approval', { prompt: 'Ship it?' }), transform('Shape', '{"shipped": true}')],
      [{ from: 'Ask first', to: 'Shape' }],
    );
    const requestId = await runVersion(api, version, { order: 7 });
    const page = await openSignedIn('#/requests', 'Workflow requests');
    await page.getByRole('link', { name: requestId }).click();
    await page.getByRole('heading', { name: `Workflow request ${requestId}`, level: 2 }).waitFor();

    // Act
    const approval = page.getByRole('listitem', { name: 'Approval needed' });
    await approval.getByText('Ship it?').waitFor();
    await page
      .getByRole('row', { name: /Ask first/ })
      .getByText('waiting')
      .waitFor();
    await screenshot(page, 'console-request-waiting');
    await approval.getByRole('button', { name: 'Approve' }).click();

    // Assert
    await statusLine(page, 'completed').waitFor();
    await page.getByRole('row', { name: /Shape/ }).getByText('completed').waitFor();
    expect(await page.getByRole('button', { name: 'Stop request' }).count()).toBe(0);
    await screenshot(page, 'console-request-completed');
    await page.close();
  });

  test('“Stop request” stops a waiting request', async () => {
    // Prepare
    const version = await createVersion(api, [node('Hold', 'approval', { prompt: 'Wait here' })], []);
    const requestId = await runVersion(api, version);
    const page = await openSignedIn(`#/requests/${requestId}`, `Workflow request ${requestId}`);
    await statusLine(page, 'waiting').waitFor();

    // Act
    await page.getByRole('button', { name: 'Stop request' }).click();

    // Assert
    await statusLine(page, 'stopped').waitFor();
    expect((await api('GET', `/v1/workflow-requests/${requestId}`)).body.status).toBe('stopped');
    await page.getByRole('link', { name: '← Workflow requests' }).click();
    await page
      .getByRole('row', { name: new RegExp(requestId) })
      .getByText('stopped')
      .waitFor();
    await screenshot(page, 'console-requests');
    await page.close();
  });
});

describe('webhooks', () => {
  test('an endpoint added in the console; its failed delivery retried once it is enabled again; then deleted', async () => {
    // Prepare: the receiver answers 410 Gone, which fails the delivery and disables the endpoint.
    const name = `gone-${randomUUID().slice(0, 6)}`;
    receiver.answers.set(name, [410]);
    const page = await openSignedIn('#/webhooks', 'Webhooks');

    // Act: add it
    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/${name}`);
    await page.getByLabel('Description').fill('browser test');
    await page.getByRole('button', { name: 'Add endpoint' }).click();

    // Assert: the secret shown once, then the endpoint listed
    const secret = page.getByRole('textbox', { name: 'Signing secret of the new endpoint' });
    expect(await secret.inputValue()).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('link', { name: `${receiver.url}/${name}` }).click();
    await page.getByRole('heading', { name: /^Webhook endpoint/, level: 2 }).waitFor();
    const endpointId = decodeURIComponent(page.url().split('/').pop() ?? '');

    // Act: a run completes; its delivery fails
    const harness = await api(
      'POST',
      '/v2/harnesses',
      {
        name: 'echo',
        files: [
          { path: 'harness.json', content: JSON.stringify({ model: 'local/echo', instructions: 'p.md' }) },
          { path: 'p.md', content: 'Echo.' },
        ],
      },
      { 'Idempotency-Key': randomUUID() },
    );
    await api(
      'POST',
      '/v2/runs',
      { harness_id: harness.body.id, machine_id: await newMachine(call, token), input: 'deliver me' },
      { 'Idempotency-Key': randomUUID() },
    );
    await vi.waitFor(async () => expect((await api('GET', `/v1/webhook-endpoints/${endpointId}/deliveries`)).body.deliveries[0]?.status).toBe('failed'), {
      timeout: 30_000,
      interval: 200,
    });
    await page.reload();
    const row = page.getByRole('row', { name: /run\.completed/ });
    await row.getByText('failed').waitFor();
    await page.getByText('Disabled because a delivery was answered 410 Gone.').waitFor();
    await screenshot(page, 'console-webhook-failed');

    // Assert: a retry of a disabled endpoint's delivery says why not; enabled again, it is retried and delivered
    await row.getByRole('button', { name: 'Retry' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /disabled/ })
      .waitFor();
    await page.getByRole('button', { name: 'Enable endpoint' }).click();
    await page.getByRole('button', { name: 'Disable endpoint' }).waitFor();
    receiver.answers.set(name, [200]);
    await row.getByRole('button', { name: 'Retry' }).click();
    await vi.waitFor(async () => expect((await api('GET', `/v1/webhook-endpoints/${endpointId}/deliveries`)).body.deliveries[0]?.status).toBe('delivered'), {
      timeout: 30_000,
      interval: 200,
    });
    await page.getByRole('button', { name: 'Refresh' }).click();
    await row.getByText('delivered').waitFor();
    await screenshot(page, 'console-webhook-delivered');

    // Act: delete it
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete endpoint' }).click();

    // Assert
    await page.getByRole('heading', { name: 'Webhooks', level: 2 }).waitFor();
    await page.getByText('No endpoints yet.').waitFor();
    expect((await api('GET', `/v1/webhook-endpoints/${endpointId}`)).status).toBe(404);
    await page.close();
  });

  test('nothing was asked of another origin and nothing was reported', () => {
    expect(watches.flatMap((w) => w.foreignRequests)).toEqual([]);
    expect(watches.flatMap((w) => w.errors).filter((e) => !/Failed to load resource: the server responded with a status of (401|409)/.test(e))).toEqual([]);
  });
});
