import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterAll, beforeAll, describe, test } from 'vitest';
import { parseAllowList } from '#net/address-guard.js';
import { describeUrl, guardedFetch, redactSecrets } from '#net/guarded-fetch.js';
import type { OutboundSettings } from '#net/outbound-settings.js';
import { fails } from '../helpers/failure.js';
import { closeServer, listenLocally } from '../helpers/local-server.js';

// The client on its own, as webhooks and MCP calls use it. The http node's tests (http-node.test.ts) cover the guard,
// redirects, limits and timeouts through the node; these cover what the node does not show: statuses are the caller's
// to judge, the body is read only when asked, the final hop is reported, settings can be given rather than read.

let server: Server;
let base: string;
const seen: Array<{ url: string; headers: IncomingMessage['headers'] }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url!, headers: req.headers });
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/redirect') {
      res.writeHead(302, { Location: url.searchParams.get('to')! });
      res.end();
    } else if (url.pathname === '/status') {
      res.writeHead(Number(url.searchParams.get('code')), { 'Content-Type': 'text/plain' });
      res.end('body of the status');
    } else if (url.pathname === '/hang') {
      // never answers
    } else {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ url: req.url, host: req.headers.host }));
    }
  });
  base = await listenLocally(server);
});
afterAll(async () => {
  await closeServer(server);
});

const LOCAL: OutboundSettings = { allowInsecure: true, ...parseAllowList('127.0.0.1') };

describe('guardedFetch', () => {
  test('any final status is answered, not judged; the body is read unless readBody declines it', async () => {
    for (const code of [200, 404, 410, 503]) {
      const response = await guardedFetch({ url: `${base}/status?code=${code}`, method: 'POST' }, { settings: LOCAL });
      assert.equal(response.status, code);
      assert.equal(response.body?.toString(), 'body of the status');
    }
    const declined = await guardedFetch({ url: `${base}/status?code=500`, method: 'GET' }, { settings: LOCAL, readBody: (status) => status < 400 });
    assert.equal(declined.status, 500);
    assert.equal(declined.statusText, 'Internal Server Error');
    assert.equal(declined.body, undefined);
  });

  test("the final hop is reported; managed headers are the client's own; names are lower-cased", async () => {
    const response = await guardedFetch(
      {
        url: `${base}/redirect?to=${encodeURIComponent('/echo?hop=1')}`,
        method: 'POST',
        headers: { Host: 'evil.example', 'X-Trace': 't' },
        body: Buffer.from('x'),
      },
      { settings: LOCAL },
    );
    assert.equal(response.url.href, `${base}/echo?hop=1`);
    assert.equal(response.method, 'GET', '302 after a POST continues as GET');
    assert.equal(response.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(response.body!.toString()), { url: '/echo?hop=1', host: base.slice('http://'.length) });
    assert.equal(seen.at(-1)!.headers['x-trace'], 't');
  });

  test("settings given are used instead of the environment's; by default the environment is read", async () => {
    const saved = { hosts: process.env.OUTBOUND_ALLOWED_HOSTS, insecure: process.env.OUTBOUND_ALLOW_INSECURE };
    try {
      process.env.OUTBOUND_ALLOWED_HOSTS = '127.0.0.1';
      process.env.OUTBOUND_ALLOW_INSECURE = 'true';
      assert.equal((await guardedFetch({ url: `${base}/echo`, method: 'GET' })).status, 200);
      await fails(guardedFetch({ url: `${base}/echo`, method: 'GET' }, { settings: { ...LOCAL, allowInsecure: false } }), 'insecure_url', false);
      await fails(guardedFetch({ url: `${base}/echo`, method: 'GET' }, { settings: { ...LOCAL, ...parseAllowList('') } }), 'ssrf_blocked', false);
    } finally {
      for (const [name, value] of [
        ['OUTBOUND_ALLOWED_HOSTS', saved.hosts],
        ['OUTBOUND_ALLOW_INSECURE', saved.insecure],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  test("timeouts name the caller's deadline; secret header values never appear in a message", async () => {
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    const deadline = await fails(guardedFetch({ url: `${base}/hang`, method: 'GET' }, { settings: LOCAL, signal: abort.signal }), 'timeout', true);
    assert.match(deadline.message, /^GET http:\/\/127\.0\.0\.1:\d+\/hang did not finish within the caller's deadline\.$/);
    const own = await fails(guardedFetch({ url: `${base}/hang`, method: 'GET' }, { settings: LOCAL, timeoutMs: 50 }), 'timeout', true);
    assert.match(own.message, /within 50 ms/);

    const secret = 'sk-very-secret';
    const failure = await fails(
      guardedFetch({ url: `http://${secret}.invalid/x`, method: 'GET', headers: { 'X-Api-Key': secret } }, { settings: LOCAL }),
      'network_error',
      true,
    );
    assert.doesNotMatch(failure.message, /very-secret/);
    assert.match(failure.message, /\[redacted\]/);
    assert.equal(redactSecrets('a token abcd and abc', { authorization: 'abcd', 'x-plain': 'and', 'x-token': 'abc' }), 'a token [redacted] and abc');
    assert.equal(describeUrl(new URL('https://u@example.com:8443/a/b?q=secret#f')), 'https://example.com:8443/a/b');
  });
});
