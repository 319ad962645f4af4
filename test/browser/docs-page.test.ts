import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { DOCS_CSP } from '../../web/build.js';
import { type ConsoleStack, launchChromium, screenshot, startConsoleStack, watchPage } from './support/browser.js';

let stack: ConsoleStack;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startConsoleStack(), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

test('GET /docs renders the API reference from /openapi.json offline: nothing from another origin, nothing the CSP blocked', async () => {
  // Prepare
  const page = await browser.newPage();
  const watch = watchPage(page, stack.url);
  const document = page.waitForResponse((response) => response.url() === `${stack.url}/openapi.json`);

  // Act
  const response = await page.goto(`${stack.url}/docs`);
  await document;

  // Assert
  expect(response?.headers()['content-security-policy']).toBe(DOCS_CSP);
  // The document's title, then an operation found through the sidebar, rendered by Scalar from the served document.
  await page.getByRole('heading', { name: 'Workflow and Agent Execution Service' }).waitFor({ timeout: 30_000 });
  await page
    .getByRole('button', { name: 'Runs', exact: true })
    .or(page.getByRole('link', { name: 'Runs', exact: true }))
    .first()
    .click();
  await page.getByText('Start a run of a harness on a machine').first().waitFor({ timeout: 15_000 });
  await screenshot(page, 'docs-reference', { fullPage: false });
  expect(watch.foreignRequests).toEqual([]);
  expect(watch.errors).toEqual([]);
});
