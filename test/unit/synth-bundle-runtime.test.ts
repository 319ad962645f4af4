import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'vitest';
import { FunctionError, FunctionTimeout } from '#local/synth/bundle-runtime.js';
import { bundleFixture, waitFor } from '../helpers/bundle-runtime.js';

/** Tiny asset folders, as cdk.out holds them: an `index.mjs` exporting `handler`. */
const fixture = bundleFixture({
  buffered: `
    import { randomUUID } from 'node:crypto';
    const environmentId = randomUUID();
    let count = 0;
    export const handler = async (event, context) => {
      count += 1;
      console.log('invoked', count);
      if (event.fail) throw Object.assign(new Error('short and stout'), { name: 'TeapotError' });
      if (event.exit) process.exit(3);
      if (event.sleepMs) await new Promise((resolve) => setTimeout(resolve, event.sleepMs));
      return { count, environmentId, env: { ...process.env }, requestId: context.awsRequestId, remainingMs: context.getRemainingTimeInMillis() };
    };`,
  initError: `throw new RangeError('no configuration');`,
});

type Answer = { count: number; environmentId: string; env: Record<string, string>; requestId: string; remainingMs: number };

describe('BundleRuntime: buffered invocations', () => {
  test('the function sees its own environment and what the runtime adds, and its module scope survives between invocations', async () => {
    process.env.PARENT_ONLY = 'leaked';
    const fn = fixture.runtime('buffered', { environment: { GREETING: 'hello', AWS_REGION: 'eu-west-1' }, timeoutSeconds: 5 });

    const first = (await fn.invoke({})) as Answer;
    const second = (await fn.invoke({})) as Answer;

    delete process.env.PARENT_ONLY;
    assert.deepEqual(Object.keys(first.env).sort(), [
      ...['AWS_DEFAULT_REGION', 'AWS_EXECUTION_ENV', 'AWS_LAMBDA_FUNCTION_MEMORY_SIZE', 'AWS_LAMBDA_FUNCTION_NAME', 'AWS_LAMBDA_FUNCTION_VERSION'],
      ...[
        'AWS_LAMBDA_INITIALIZATION_TYPE',
        'AWS_LAMBDA_LOG_GROUP_NAME',
        'AWS_LAMBDA_LOG_STREAM_NAME',
        'AWS_REGION',
        'GREETING',
        'LAMBDA_TASK_ROOT',
        'LANG',
        'TZ',
      ],
      '_HANDLER',
    ]);
    assert.equal(first.env.GREETING, 'hello');
    assert.equal(first.env.AWS_DEFAULT_REGION, 'eu-west-1');
    assert.equal(first.env.AWS_LAMBDA_FUNCTION_NAME, 'fn-buffered');
    assert.equal(first.env.LAMBDA_TASK_ROOT, join(fixture.root, 'buffered'));
    assert.equal(first.env._HANDLER, 'index.handler');
    assert.deepEqual([first.count, second.count], [1, 2]);
    assert.equal(second.environmentId, first.environmentId);
    assert.notEqual(second.requestId, first.requestId);
    assert.ok(first.remainingMs > 4000 && first.remainingMs <= 5000, `remaining ${first.remainingMs} ms`);
    await waitFor(() => fixture.logs.some((line) => /^\[fn-buffered\] \S+\t[0-9a-f-]{36}\tINFO\tinvoked 2$/.test(line)), 'the log line');
  });

  test('a handler that throws fails the invocation with its error type and message; the environment serves on', async () => {
    const fn = fixture.runtime('buffered');

    const failure = await fn.invoke({ fail: true }).catch((error: unknown) => error);
    const after = (await fn.invoke({})) as Answer;

    assert.ok(failure instanceof FunctionError);
    assert.deepEqual([failure.errorType, failure.errorMessage], ['TeapotError', 'short and stout']);
    assert.equal(after.count, 2);
  });

  test('past its timeout the environment is ended and the next invocation gets a fresh one', async () => {
    const fn = fixture.runtime('buffered', { timeoutSeconds: 1 });

    const started = Date.now();
    const failure = await fn.invoke({ sleepMs: 5000 }).catch((error: unknown) => error);
    const elapsed = Date.now() - started;
    const next = (await fn.invoke({})) as Answer;

    assert.ok(failure instanceof FunctionTimeout);
    assert.equal(failure.errorMessage, 'Task timed out after 1.00 seconds');
    assert.ok(elapsed >= 1000 && elapsed < 2000, `timed out after ${elapsed} ms`);
    assert.equal(next.count, 1);
  });

  test('process.exit ends only that environment; an init error fails the invocation with the error', async () => {
    const fn = fixture.runtime('buffered');
    const broken = fixture.runtime('initError');

    const exited = await fn.invoke({ exit: true }).catch((error: unknown) => error);
    const next = (await fn.invoke({})) as Answer;
    const initFailure = await broken.invoke({}).catch((error: unknown) => error);

    assert.ok(exited instanceof FunctionError);
    assert.deepEqual([exited.errorType, exited.errorMessage], ['Runtime.ExitError', 'Runtime exited with error: exit status 3']);
    assert.equal(next.count, 1);
    assert.ok(initFailure instanceof FunctionError);
    assert.deepEqual([initFailure.errorType, initFailure.errorMessage], ['RangeError', 'no configuration']);
  });

  test('concurrent invocations run in environments of their own, up to the limit; beyond it they wait for a free one', async () => {
    const fn = fixture.runtime('buffered', {}, 2);

    const answers = (await Promise.all([fn.invoke({ sleepMs: 300 }), fn.invoke({ sleepMs: 300 }), fn.invoke({ sleepMs: 300 })])) as Answer[];

    assert.equal(new Set(answers.map((a) => a.environmentId)).size, 2);
    assert.deepEqual(answers.map((a) => a.count).sort(), [1, 1, 2]);
  });
});
