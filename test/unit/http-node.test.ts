import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import dns from 'node:dns';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, test, vi } from 'vitest';
import { httpNode, httpNodeSettings } from '#execution/nodes/http.js';
import { renderString, renderValue, wholeTemplate } from '#expressions/template.js';
import { checkDefinition } from '#workflows/definition-validation.js';
import { WorkflowDefinitionInput, type WorkflowNode } from '#workflows/schemas/workflow-definition.js';
import { fails } from '../helpers/failure.js';
import { closeServer } from '../helpers/local-server.js';

// ---------------------------------------------------------------- a local server

let server: Server;
let base: string;
let port: number;
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }> = [];
let streamClosed = false;

function route(req: IncomingMessage, res: ServerResponse, body: string) {
  const url = new URL(req.url!, 'http://x');
  seen.push({ method: req.method!, url: req.url!, headers: req.headers });
  const param = (name: string, fallback = '') => url.searchParams.get(name) ?? fallback;
  switch (url.pathname) {
    case '/echo':
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'X-Custom': 'yes', 'Set-Cookie': 'sid=secret' });
      res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body }));
      return;
    case '/text':
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('hello');
      return;
    case '/problem':
      res.writeHead(200, { 'Content-Type': 'application/problem+json' });
      res.end('{"title":"x"}');
      return;
    case '/status':
      res.writeHead(Number(param('code')), { 'Content-Type': 'text/plain' });
      res.end('status body');
      return;
    case '/redirect':
      res.writeHead(Number(param('status', '302')), { Location: param('to') });
      res.end();
      return;
    case '/loop':
      res.writeHead(302, { Location: '/loop' });
      res.end();
      return;
    case '/big': {
      const size = Number(param('size'));
      if (param('length') === 'yes') res.setHeader('Content-Length', size);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      for (let i = 0; i < size; i += 100) res.write('x'.repeat(Math.min(100, size - i)));
      res.end();
      return;
    }
    case '/gzip': {
      const zipped = gzipSync(Buffer.from(JSON.stringify({ pad: '0'.repeat(Number(param('size'))) })));
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip', 'Content-Length': zipped.length });
      res.end(zipped);
      return;
    }
    case '/endless': {
      streamClosed = false;
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      const timer = setInterval(() => res.write('y'.repeat(1000)), 1);
      res.on('close', () => {
        clearInterval(timer);
        streamClosed = true;
      });
      return;
    }
    case '/hang':
      return; // never answers
    default:
      res.writeHead(404);
      res.end();
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => route(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await closeServer(server);
});

// ---------------------------------------------------------------- helpers

// The http node's variable names (aliases of OUTBOUND_ALLOWED_HOSTS and OUTBOUND_ALLOW_INSECURE, which are cleared too so they cannot win).
const ENV = [
  'HTTP_NODE_ALLOWED_HOSTS',
  'HTTP_NODE_ALLOW_INSECURE',
  'HTTP_NODE_MAX_RESPONSE_BYTES',
  'OUTBOUND_ALLOWED_HOSTS',
  'OUTBOUND_ALLOW_INSECURE',
] as const;

/** Runs `fn` with these settings (read per call by the runner), then restores the environment. */
async function withEnv<T>(vars: Partial<Record<(typeof ENV)[number], string>>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
  for (const k of ENV) delete process.env[k];
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const k of ENV) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
}
const LOCAL = { HTTP_NODE_ALLOWED_HOSTS: '127.0.0.1', HTTP_NODE_ALLOW_INSECURE: 'true' } as const;

const httpNodeOf = (config: Record<string, unknown>): WorkflowNode => ({ id: randomUUID(), name: 'call', type: 'http', config });

function call(config: Record<string, unknown>, input: Record<string, unknown> = {}, signal: AbortSignal = new AbortController().signal) {
  return httpNode({ node: httpNodeOf({ method: 'GET', ...config }), input, signal }) as Promise<{
    status: number;
    headers: Record<string, string>;
    body: unknown;
  }>;
}

// ---------------------------------------------------------------- tests

// The address classifier's cases are in net-address-guard.test.ts, with the guard.
describe('settings', () => {
  test('settings: allowed hosts split into hostnames and CIDRs; bad numbers fall back to defaults', () => {
    const settings = httpNodeSettings({
      HTTP_NODE_ALLOWED_HOSTS: ' Api.Internal. , 10.0.0.0/8,127.0.0.1, fd00::/8, bad/99',
      HTTP_NODE_MAX_RESPONSE_BYTES: 'lots',
    });
    assert.deepEqual([...settings.allowedHostnames], ['api.internal', 'bad/99']);
    assert.equal(settings.allowedCidrs.length, 3);
    assert.equal(settings.maxResponseBytes, 5 * 1024 * 1024);
    assert.equal(settings.allowInsecure, false);
    assert.equal(httpNodeSettings({ HTTP_NODE_ALLOW_INSECURE: 'true', HTTP_NODE_MAX_RESPONSE_BYTES: '10' }).maxResponseBytes, 10);
  });
});

describe('templates', () => {
  const evaluate = async (e: string) => ({ ' a ': 1, ' s ': 'text', ' o ': { x: [1, 2] }, ' none ': undefined })[e];

  test('strings are interpolated; whole templates keep their JSON type; keys are left alone', async () => {
    assert.equal(await renderString('n={{ a }}&s={{ s }}&o={{ o }}&u={{ none }}', evaluate), 'n=1&s=text&o={"x":[1,2]}&u=');
    assert.equal(await renderString('no templates {{ unclosed', evaluate), 'no templates {{ unclosed');
    assert.deepEqual(await renderValue({ '{{ a }}': '{{ o }}', list: ['{{ a }}', 'x{{ a }}', 3, null, true] }, evaluate), {
      '{{ a }}': { x: [1, 2] },
      list: [1, 'x1', 3, null, true],
    });
    assert.equal(wholeTemplate('{{ a }} {{ s }}'), undefined);
    assert.equal(wholeTemplate(' {{ a }}'), undefined);
    assert.equal(wholeTemplate('{{ a }}'), ' a ');
  });

  test('definition validation compiles http templates, with pointers to url, header and body leaf', async () => {
    const result = await checkDefinition(
      WorkflowDefinitionInput.parse({
        nodes: [
          { name: 't', type: 'transform', config: { expression: '1' } },
          {
            name: 'call',
            type: 'http',
            config: {
              method: 'POST',
              url: 'https://example.com/{{ id + }}',
              headers: { 'X-Good': '{{ $string(id) }}', 'X-Bad': 'Bearer {{ ) }}' },
              body: { ok: '{{ id }}', deep: [{ bad: 'x {{ }}' }], 'a/b': '{{ ( }}' },
            },
          },
        ],
      }),
    );
    assert.deepEqual(
      result.errors.map((e) => [e.name, e.code]),
      [
        ['/definition/nodes/1/config/url', 'invalid_expression'],
        ['/definition/nodes/1/config/headers/X-Bad', 'invalid_expression'],
        ['/definition/nodes/1/config/body/deep/0/bad', 'invalid_expression'],
        ['/definition/nodes/1/config/body/a~1b', 'invalid_expression'],
      ],
    );
  });
});

describe('http node against a local server', () => {
  test('templated url, headers and body; JSON answer parsed; headers lower-cased without set-cookie', async () => {
    const output = await withEnv(LOCAL, () =>
      call(
        {
          method: 'POST',
          url: `${base}/echo?id={{ $encodeUrlComponent(user.id) }}`,
          headers: { 'X-Trace': 'trace-{{ user.id }}', Authorization: 'Bearer {{ token }}', Host: 'evil.example' },
          body: { user: '{{ user }}', greeting: 'hi {{ user.name }}', count: '{{ $count(items) }}', fixed: 1 },
        },
        { user: { id: 'a b', name: 'Ann' }, token: 'tok', items: [1, 2, 3] },
      ),
    );
    assert.equal(output.status, 200);
    assert.equal(output.headers['x-custom'], 'yes');
    assert.equal(output.headers['set-cookie'], undefined);
    assert.ok(Object.keys(output.headers).every((k) => k === k.toLowerCase()));
    const echoed = output.body as { method: string; url: string; headers: Record<string, string>; body: string };
    assert.equal(echoed.method, 'POST');
    assert.equal(echoed.url, '/echo?id=a%20b');
    assert.equal(echoed.headers['x-trace'], 'trace-a b');
    assert.equal(echoed.headers.authorization, 'Bearer tok');
    assert.equal(echoed.headers.host, `127.0.0.1:${port}`, 'Host is the URL host, not the config value');
    assert.equal(echoed.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(echoed.body), { user: { id: 'a b', name: 'Ann' }, greeting: 'hi Ann', count: 3, fixed: 1 });
  });

  test('a string body is sent as text; a body that is one template takes its JSON type; text and +json answers', async () => {
    await withEnv(LOCAL, async () => {
      const text = await call({ method: 'PUT', url: `${base}/echo`, body: 'plain {{ n }}' }, { n: 2 });
      assert.equal((text.body as { body: string }).body, 'plain 2');
      assert.equal((text.body as { headers: Record<string, string> }).headers['content-type'], 'text/plain; charset=utf-8');
      const whole = await call({ method: 'PATCH', url: `${base}/echo`, body: '{{ list }}' }, { list: [1, 'a'] });
      assert.equal((whole.body as { body: string }).body, '[1,"a"]');
      assert.deepEqual(await call({ url: `${base}/text` }).then((o) => o.body), 'hello');
      assert.deepEqual(await call({ url: `${base}/problem` }).then((o) => o.body), { title: 'x' });
      const head = await call({ method: 'HEAD', url: `${base}/echo`, body: { ignored: true } });
      assert.equal(head.status, 200);
      assert.equal(head.body, null);
    });
  });

  test('status classification: 2xx output; 429 and 5xx retryable; other 4xx not', async () => {
    await withEnv(LOCAL, async () => {
      assert.equal((await call({ url: `${base}/status?code=204` })).status, 204);
      assert.equal((await call({ url: `${base}/status?code=201` })).body, 'status body');
      await fails(call({ url: `${base}/status?code=500` }), 'http_5xx', true);
      await fails(call({ url: `${base}/status?code=503` }), 'http_5xx', true);
      await fails(call({ url: `${base}/status?code=429` }), 'http_429', true);
      await fails(call({ url: `${base}/status?code=404` }), 'http_4xx', false);
      const failure = await fails(call({ url: `${base}/status?code=400&api_key=hidden` }), 'http_4xx', false);
      assert.match(failure.message, /GET http:\/\/127\.0\.0\.1:\d+\/status answered 400 Bad Request/);
      assert.doesNotMatch(failure.message, /hidden/, 'no query string in messages');
    });
  });

  test('SSRF: loopback refused unless allowed; metadata address and hostnames; localhost; IPv4-mapped literal', async () => {
    await withEnv({ HTTP_NODE_ALLOW_INSECURE: 'true' }, async () => {
      const before = seen.length;
      await fails(call({ url: `${base}/echo` }), 'ssrf_blocked', false);
      await fails(call({ url: `http://localhost:${port}/echo` }), 'ssrf_blocked', false);
      await fails(call({ url: 'http://169.254.169.254/latest/meta-data' }), 'ssrf_blocked', false);
      await fails(call({ url: 'http://metadata.google.internal./computeMetadata/v1/' }), 'ssrf_blocked', false);
      await fails(call({ url: 'http://instance-data/latest' }), 'ssrf_blocked', false);
      await fails(call({ url: `http://[::ffff:127.0.0.1]:${port}/echo` }), 'ssrf_blocked', false);
      await fails(call({ url: `http://[::1]:${port}/echo` }), 'ssrf_blocked', false);
      await fails(call({ url: `http://0x7f.1:${port}/echo` }), 'ssrf_blocked', false);
      await fails(call({ url: `http://2130706433:${port}/echo` }), 'ssrf_blocked', false);
      assert.equal(seen.length, before, 'no request reached the server');
    });
    await withEnv({ HTTP_NODE_ALLOW_INSECURE: 'true', HTTP_NODE_ALLOWED_HOSTS: '127.0.0.0/8' }, async () => {
      assert.equal((await call({ url: `${base}/text` })).status, 200, 'a CIDR allows its addresses');
      await fails(call({ url: 'http://169.254.169.254/latest/meta-data' }), 'ssrf_blocked', false);
    });
    await withEnv({ HTTP_NODE_ALLOW_INSECURE: 'true', HTTP_NODE_ALLOWED_HOSTS: 'LocalHost' }, async () => {
      assert.equal((await call({ url: `http://localhost:${port}/text` })).status, 200, 'a hostname allows whatever it resolves to');
      await fails(call({ url: `${base}/text` }), 'ssrf_blocked', false);
    });
  });

  test('the outbound settings under their own names: OUTBOUND_ALLOWED_HOSTS and OUTBOUND_ALLOW_INSECURE, preferred to the aliases', async () => {
    await withEnv({ OUTBOUND_ALLOWED_HOSTS: '127.0.0.1', OUTBOUND_ALLOW_INSECURE: 'true' }, async () => {
      assert.equal((await call({ url: `${base}/text` })).status, 200);
    });
    await withEnv({ OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' }, () => fails(call({ url: `${base}/text` }), 'insecure_url', false));
    await withEnv({ OUTBOUND_ALLOW_INSECURE: 'true' }, () => fails(call({ url: `${base}/text` }), 'ssrf_blocked', false));
    await withEnv({ ...LOCAL, OUTBOUND_ALLOW_INSECURE: 'false' }, () => fails(call({ url: `${base}/text` }), 'insecure_url', false));
    await withEnv({ ...LOCAL, OUTBOUND_ALLOWED_HOSTS: 'api.internal' }, () => fails(call({ url: `${base}/text` }), 'ssrf_blocked', false));
  });

  test('the connection uses the checked addresses: no second DNS resolution (no rebinding window)', async () => {
    const spy = vi.spyOn(dns, 'lookup'); // what a socket uses when no lookup is given
    try {
      await withEnv({ HTTP_NODE_ALLOW_INSECURE: 'true', HTTP_NODE_ALLOWED_HOSTS: 'localhost' }, async () => {
        const output = await call({ url: `http://localhost:${port}/echo` });
        assert.equal((output.body as { headers: Record<string, string> }).headers.host, `localhost:${port}`);
      });
      assert.equal(spy.mock.calls.length, 0);
    } finally {
      spy.mockRestore();
    }
  });

  test('https: TLS goes to the checked address with the URL host as SNI', async () => {
    let servername: string | undefined;
    const tlsServer = createTlsServer({
      SNICallback: (name, callback) => {
        servername = name;
        callback(new Error('no certificate here'), undefined);
      },
    });
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    try {
      const tlsPort = (tlsServer.address() as AddressInfo).port;
      await withEnv({ HTTP_NODE_ALLOWED_HOSTS: 'localhost' }, () => fails(call({ url: `https://localhost:${tlsPort}/` }), 'network_error', true));
      assert.equal(servername, 'localhost');
    } finally {
      await new Promise((r) => tlsServer.close(r));
    }
  });

  test('scheme and URL checks', async () => {
    await withEnv({ HTTP_NODE_ALLOWED_HOSTS: '127.0.0.1' }, async () => {
      await fails(call({ url: `${base}/echo` }), 'insecure_url', false);
    });
    await withEnv(LOCAL, async () => {
      await fails(call({ url: 'ftp://example.com/x' }), 'invalid_url', false);
      await fails(call({ url: '/relative' }), 'invalid_url', false);
      await fails(call({ url: '{{ missing }}' }), 'invalid_url', false);
      await fails(call({ url: `http://user:pw@127.0.0.1:${port}/echo` }), 'invalid_url', false);
      await fails(call({ url: `${base}/{{ $error("boom") }}` }), 'expression_error', false);
    });
  });

  test('redirects: followed and re-checked, at most 5, 303 becomes GET, credentials dropped across origins', async () => {
    await withEnv({ ...LOCAL, HTTP_NODE_ALLOWED_HOSTS: '127.0.0.1,localhost' }, async () => {
      const followed = await call({ url: `${base}/redirect?to=${encodeURIComponent('/echo?hop=1')}`, headers: { Authorization: 'Bearer a' } });
      assert.equal((followed.body as { url: string }).url, '/echo?hop=1');
      assert.equal((followed.body as { headers: Record<string, string> }).headers.authorization, 'Bearer a', 'same origin keeps credentials');

      const seeOther = await call({ method: 'POST', url: `${base}/redirect?status=303&to=/echo`, body: { a: 1 } });
      assert.equal((seeOther.body as { method: string }).method, 'GET');
      assert.equal((seeOther.body as { body: string }).body, '');
      const temporary = await call({ method: 'POST', url: `${base}/redirect?status=307&to=/echo`, body: { a: 1 } });
      assert.equal((temporary.body as { method: string }).method, 'POST');
      assert.equal((temporary.body as { body: string }).body, '{"a":1}');

      const crossOrigin = await call({
        url: `${base}/redirect?to=${encodeURIComponent(`http://localhost:${port}/echo`)}`,
        headers: { Authorization: 'Bearer a', 'X-Api-Key': 'k', Cookie: 'c=1', 'X-Plain': 'kept' },
      });
      const headers = (crossOrigin.body as { headers: Record<string, string> }).headers;
      assert.equal(headers.host, `localhost:${port}`);
      assert.equal(headers.authorization, undefined);
      assert.equal(headers['x-api-key'], undefined);
      assert.equal(headers.cookie, undefined);
      assert.equal(headers['x-plain'], 'kept');

      await fails(call({ url: `${base}/loop` }), 'too_many_redirects', false);
      await fails(call({ url: `${base}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data')}` }), 'ssrf_blocked', false);
    });
  });

  test('response size limit: declared, streamed and decompressed sizes; the read stops at the limit', async () => {
    await withEnv({ ...LOCAL, HTTP_NODE_MAX_RESPONSE_BYTES: '1000' }, async () => {
      assert.equal(((await call({ url: `${base}/big?size=1000` })).body as string).length, 1000);
      await fails(call({ url: `${base}/big?size=1001` }), 'response_too_large', false);
      await fails(call({ url: `${base}/big?size=5000&length=yes` }), 'response_too_large', false);
      assert.deepEqual((await call({ url: `${base}/gzip?size=10` })).body, { pad: '0'.repeat(10) });
      await fails(call({ url: `${base}/gzip?size=100000` }), 'response_too_large', false);
    });
    await withEnv(LOCAL, async () => {
      // Readable, but too large to be stored as the node's output (a DynamoDB item).
      assert.equal(((await call({ url: `${base}/big?size=290000` })).body as string).length, 290_000);
      const failure = await fails(call({ url: `${base}/big?size=400000` }), 'response_too_large', false);
      assert.match(failure.message, /too large to keep/);
    });
    await withEnv({ ...LOCAL, HTTP_NODE_MAX_RESPONSE_BYTES: '1000' }, async () => {
      const started = Date.now();
      await fails(call({ url: `${base}/endless` }), 'response_too_large', false);
      assert.ok(Date.now() - started < 2000);
      await vi.waitFor(() => assert.equal(streamClosed, true, 'the connection was closed'), { timeout: 500, interval: 10 });
    });
  });

  test('timeouts: config.timeout_ms and the executor signal both end the call with timeout (retryable)', async () => {
    await withEnv(LOCAL, async () => {
      const started = Date.now();
      await fails(call({ url: `${base}/hang`, timeout_ms: 100 }), 'timeout', true);
      assert.ok(Date.now() - started < 1000);
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 100); // the executor's deadline passing mid-call: time is what is tested
      const failure = await fails(call({ url: `${base}/hang` }, {}, abort.signal), 'timeout', true);
      assert.match(failure.message, /node's timeout/);
      const already = new AbortController();
      already.abort();
      await fails(call({ url: `${base}/text` }, {}, already.signal), 'timeout', true);
    });
  });

  test('connection errors are network_error (retryable); bad header values are refused without echoing them', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    await withEnv(LOCAL, async () => {
      const refused = await fails(call({ url: `http://127.0.0.1:${closedPort}/x?token=hidden` }), 'network_error', true);
      assert.match(refused.message, /ECONNREFUSED/);
      assert.doesNotMatch(refused.message, /hidden/);
      await fails(call({ url: 'https://no-such-host.invalid/' }), 'network_error', true);
      const bad = await fails(
        call({ url: `${base}/echo`, headers: { Authorization: 'Bearer {{ secret }}' } }, { secret: 'sup3r\r\nX: y' }),
        'invalid_request',
        false,
      );
      assert.doesNotMatch(bad.message, /sup3r/);
      assert.match(bad.message, /Authorization/);
    });
  });
});
