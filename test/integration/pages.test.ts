import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { CONSOLE_CSP, DOCS_CSP } from '../../web/build.js';
import { startTestStack } from '../helpers/stack.js';

let stack: Awaited<ReturnType<typeof startTestStack>>;

beforeAll(async () => {
  stack = await startTestStack({ workers: false });
});

afterAll(async () => {
  await stack?.stop();
});

/** The same-origin scripts and stylesheets a page names. */
const assetsOf = (html: string): string[] => [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);

describe('the pages through the local gateway', () => {
  for (const [path, csp] of [
    ['/', CONSOLE_CSP],
    ['/docs', DOCS_CSP],
  ] as const) {
    test(`GET ${path} answers its page with its Content-Security-Policy, and every asset it names is served`, async () => {
      // Act
      const page = await fetch(`${stack.url}${path}`);
      const html = await page.text();

      // Assert
      assert.equal(page.status, 200);
      assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(page.headers.get('content-security-policy'), csp);
      assert.equal(page.headers.get('cache-control'), 'no-cache');
      assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]+<\/script>|https?:\/\//, 'no inline script and no address of another origin');
      const assets = assetsOf(html);
      assert.ok(assets.length > 0);
      for (const asset of assets) {
        const response = await fetch(`${stack.url}${asset}`);
        assert.equal(response.status, 200, asset);
        assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable', asset);
        assert.ok((await response.arrayBuffer()).byteLength > 0, asset);
      }
    });
  }

  test('an asset asked again with its ETag is 304; an unknown asset is a 404 problem document', async () => {
    const [script] = assetsOf(await (await fetch(`${stack.url}/`)).text());
    const first = await fetch(`${stack.url}${script}`);
    const again = await fetch(`${stack.url}${script}`, { headers: { 'If-None-Match': first.headers.get('etag')! } });
    assert.equal(again.status, 304);
    const missing = await fetch(`${stack.url}/assets/console-NOPE.js`);
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('content-type'), 'application/problem+json');
    assert.equal(((await missing.json()) as { code: string }).code, 'not_found');
  });
});
