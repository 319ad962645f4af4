import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { type BundleRuntime, FunctionError } from '#local/synth/bundle-runtime.js';
import { bundleFixture, waitFor } from '../helpers/bundle-runtime.js';

/** Handlers behind a function URL with RESPONSE_STREAM: a streaming one, and a buffered one. */
const fixture = bundleFixture({
  streaming: `
    const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    export const handler = awslambda.streamifyResponse(async (event, responseStream) => {
      if (event.path === '/plain') return void responseStream.end('no prelude');
      const stream = awslambda.HttpResponseStream.from(responseStream, {
        statusCode: 201, headers: { 'Content-Type': 'text/plain', 'X-Test': 'yes' }, cookies: ['a=1', 'b=2'],
      });
      if (event.path === '/forever') {
        let closed = false;
        stream.on('close', () => { closed = true; });
        while (!closed) { stream.write('tick'); await sleep(20); }
        console.log('stream closed, handler exits');
        return;
      }
      for (const word of ['one', 'two', 'three']) { stream.write(word); await sleep(150); }
      stream.end();
    });`,
  buffered: `
    export const handler = async (event) => {
      if (event.path === '/fail') throw new Error('no answer');
      return { statusCode: 202, headers: { 'X-Test': 'buffered' }, cookies: ['c=3'], body: 'whole' };
    };`,
});

describe('BundleRuntime: response streaming', () => {
  const streamingServer = async (fn: BundleRuntime, outcomes: unknown[]) =>
    fixture.serve((req, res) => {
      fn.invokeStreaming({ path: req.url }, res).then(
        () => outcomes.push('done'),
        (error: unknown) => outcomes.push(error),
      );
    });

  test('status and headers from HttpResponseStream.from, then each chunk as it is written', async () => {
    const fn = fixture.runtime('streaming');
    const url = await streamingServer(fn, []);

    const response = await fetch(url);
    const chunks: Array<{ text: string; at: number }> = [];
    const decoder = new TextDecoder();
    for await (const chunk of response.body!) chunks.push({ text: decoder.decode(chunk), at: Date.now() });

    assert.equal(response.status, 201);
    assert.equal(response.headers.get('x-test'), 'yes');
    assert.equal(response.headers.get('content-type'), 'text/plain');
    assert.deepEqual(response.headers.getSetCookie(), ['a=1', 'b=2']);
    assert.deepEqual(
      chunks.map((c) => c.text),
      ['one', 'two', 'three'],
    );
    assert.ok(chunks[2]!.at - chunks[0]!.at >= 250, 'the first chunk came before the last was written');
    assert.equal(fn.streaming, true);
  });

  test('before HttpResponseStream.from, the answer is a 200 application/octet-stream', async () => {
    const fn = fixture.runtime('streaming');
    const url = await streamingServer(fn, []);

    const response = await fetch(`${url}/plain`);

    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/octet-stream');
    assert.equal(await response.text(), 'no prelude');
  });

  test('a client that leaves ends the function stream; the handler returns and its environment serves the next', async () => {
    const fn = fixture.runtime('streaming', {}, 1);
    const outcomes: unknown[] = [];
    const url = await streamingServer(fn, outcomes);
    const client = new AbortController();

    const response = await fetch(`${url}/forever`, { signal: client.signal });
    const reader = response.body!.getReader();
    const first = await reader.read();
    client.abort();
    await waitFor(() => fixture.logs.some((line) => line.endsWith('stream closed, handler exits')), 'the handler to see its stream closed');
    const next = await fn.invoke({});

    assert.equal(new TextDecoder().decode(first.value).slice(0, 4), 'tick');
    await waitFor(() => outcomes.length === 1, 'invokeStreaming to settle');
    assert.deepEqual(outcomes, ['done']);
    assert.equal(next, 'onetwothree');
  });

  test('a buffered handler behind the URL answers its payload 2.0 result; a failure answers 502 and is thrown', async () => {
    const fn = fixture.runtime('buffered');
    const outcomes: unknown[] = [];
    const url = await streamingServer(fn, outcomes);

    const answered = await fetch(url);
    const failed = await fetch(`${url}/fail`);

    assert.deepEqual(
      [answered.status, answered.headers.get('x-test'), answered.headers.getSetCookie(), await answered.text()],
      [202, 'buffered', ['c=3'], 'whole'],
    );
    assert.equal(failed.status, 502);
    await waitFor(() => outcomes.length === 2, 'both invocations to settle');
    assert.equal(outcomes[0], 'done');
    assert.ok(outcomes[1] instanceof FunctionError && outcomes[1].errorMessage === 'no answer');
  });
});
