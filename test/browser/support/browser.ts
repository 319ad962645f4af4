import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { adminCommands } from '#accounts/admin-commands.js';
import { createAccount, startTestStack, TEST_ACCOUNT_RPS } from '../../helpers/stack.js';

/** Debian's Chromium (package `chromium`): no browser is downloaded, by npm ci or by these tests. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * The flags this machine needs: no sandbox as root, and none of Chromium's
 * own background traffic (the network is closed; those connections fail by
 * the dozen and slow every start).
 */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
];

/** A headless Chromium with a fresh profile. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `The browser tests need Debian's Chromium at ${CHROMIUM_PATH}: sudo apt-get install -y chromium (.ci/run installs it), or set CHROMIUM_PATH.`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}

export interface ConsoleStack {
  url: string;
  accountId: string;
  email: string;
  password: string;
  table: Awaited<ReturnType<typeof startTestStack>>['table'];
  close(): Promise<void>;
}

/** A local stack on a free port (the run's DynamoDB Local and SQS emulator) with a pro account holding 10 USD. */
export async function startConsoleStack(): Promise<ConsoleStack> {
  const stack = await startTestStack();
  const account = await createAccount(stack.table, { plan: 'pro', balanceUsd: 10 });
  await adminCommands(stack.table)['account:set-limits']({ 'account-id': account.accountId, rps: String(TEST_ACCOUNT_RPS) });
  return { url: stack.url, ...account, table: stack.table, close: stack.stop };
}

const SCREENSHOTS = fileURLToPath(new URL('../../../.bench/screenshots/', import.meta.url));

/** A screenshot in .bench/screenshots (git-ignored), for a person to look at: the whole page unless `fullPage` is false. */
export async function screenshot(page: Page, name: string, { fullPage = true }: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage });
  return path;
}

export interface PageWatch {
  /** Requests to any origin but the service's. */
  foreignRequests: string[];
  /** Console errors and uncaught exceptions, CSP violations among them. */
  errors: string[];
}

/** Records what a page asked of other origins and every error it reported. */
export function watchPage(page: Page, origin: string): PageWatch {
  const watch: PageWatch = { foreignRequests: [], errors: [] };
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:') && !url.startsWith('blob:')) watch.foreignRequests.push(url);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') watch.errors.push(message.text());
  });
  page.on('pageerror', (error) => watch.errors.push(`uncaught: ${error.message}`));
  return watch;
}
