import assert from 'node:assert/strict';
import { afterEach, describe, test, vi } from 'vitest';
import { localProvider } from '#models/local.js';
import { parseScript } from '#models/local-script.js';
import { wordPieces } from '#models/streaming.js';
import type { ChatMessage, CompletionRequest } from '#models/types.js';

const script = (steps: unknown[]): string => JSON.stringify({ steps });

/** Calls the local provider with an `onText` that records what it is given. */
function listened(request: Omit<CompletionRequest, 'onText'>) {
  const deltas: string[] = [];
  const completion = localProvider.complete({ ...request, onText: (delta) => deltas.push(delta) });
  return { deltas, completion };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('local models stream their answer word by word', () => {
  test('the pieces keep every whitespace, so they join back into the text', () => {
    assert.deepEqual(wordPieces('  three   four five '), ['  three   ', 'four ', 'five ']);
    assert.deepEqual(wordPieces('one\n\ttwo'), ['one\n\t', 'two']);
    assert.deepEqual(wordPieces('   '), ['   ']);
    assert.deepEqual(wordPieces(''), []);
  });

  test('local/echo hands each word to onText and answers as it does without a listener', async () => {
    const messages: ChatMessage[] = [{ role: 'user', content: '  three   four five ' }];
    const { deltas, completion } = listened({ model: 'echo', system: 'be kind', messages });
    const result = await completion;
    assert.deepEqual(deltas, ['  three   ', 'four ', 'five ']);
    assert.equal(deltas.join(''), result.content);
    assert.deepEqual(result, await localProvider.complete({ model: 'echo', system: 'be kind', messages }));
  });

  test('local/script streams its reply, a tool-call turn streams nothing, and a replay streams the same', async () => {
    const user: ChatMessage = { role: 'user', content: script([{ tool: 'a', arguments: {} }, { reply: 'It is sunny.' }]) };
    const first = listened({ model: 'script', system: '', messages: [user] });
    assert.deepEqual((await first.completion).tool_calls, [{ id: 'call_1', name: 'a', arguments: {} }]);
    assert.deepEqual(first.deltas, []);
    const after: ChatMessage[] = [
      user,
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'a', arguments: {} }] },
      { role: 'tool', call_id: 'call_1', name: 'a', content: 'ok' },
    ];
    const second = listened({ model: 'script', system: '', messages: after });
    const replay = listened({ model: 'script', system: '', messages: after });
    assert.deepEqual(await second.completion, await replay.completion);
    assert.deepEqual(second.deltas, ['It ', 'is ', 'sunny.']);
    assert.deepEqual(replay.deltas, second.deltas);
    assert.equal(second.deltas.join(''), (await second.completion).content);
  });

  test('a reply with delay_ms waits that long before each word after the first', async () => {
    vi.useFakeTimers();
    const messages: ChatMessage[] = [{ role: 'user', content: script([{ reply: 'one two three', delay_ms: 500 }]) }];
    const { deltas, completion } = listened({ model: 'script', system: '', messages });
    let done = false;
    void completion.then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    assert.deepEqual(deltas, ['one ']);
    await vi.advanceTimersByTimeAsync(499);
    assert.deepEqual(deltas, ['one ']);
    await vi.advanceTimersByTimeAsync(1);
    assert.deepEqual(deltas, ['one ', 'two ']);
    assert.equal(done, false);
    await vi.advanceTimersByTimeAsync(500);
    assert.deepEqual(deltas, ['one ', 'two ', 'three']);
    assert.equal(done, true);
    // The pace is the model's, not the listener's: without onText it takes as long, and answers the same.
    const unheard = localProvider.complete({ model: 'script', system: '', messages });
    await vi.advanceTimersByTimeAsync(999);
    assert.equal(vi.getTimerCount(), 1);
    await vi.advanceTimersByTimeAsync(1);
    assert.deepEqual(await unheard, await completion);
  });

  test('said again past the end of the script, a reply keeps its delay', async () => {
    vi.useFakeTimers();
    const user: ChatMessage = { role: 'user', content: script([{ reply: 'a b', delay_ms: 2000 }]) };
    const messages: ChatMessage[] = [user, { role: 'assistant', content: 'a b' }, { role: 'tool', call_id: 'x', name: 'y', content: 'late' }];
    const { deltas, completion } = listened({ model: 'script', system: '', messages });
    await vi.advanceTimersByTimeAsync(1999);
    assert.deepEqual(deltas, ['a ']);
    await vi.advanceTimersByTimeAsync(1);
    assert.equal((await completion).content, 'a b');
  });

  test('delay_ms must be an integer from 0 to 2000 on a reply, or the script is plain text', async () => {
    assert.deepEqual(parseScript(script([{ reply: 'x', delay_ms: 0 }])), [{ reply: 'x', delay_ms: 0 }]);
    assert.deepEqual(parseScript(script([{ reply: 'x', delay_ms: 2000 }])), [{ reply: 'x', delay_ms: 2000 }]);
    const invalid = [-1, 2001, 1.5, '100', null, true, {}];
    for (const delay_ms of invalid) {
      const content = script([{ reply: 'x', delay_ms }]);
      assert.equal(parseScript(content), undefined, content);
      const { deltas, completion } = listened({ model: 'script', system: '', messages: [{ role: 'user', content }] });
      assert.equal((await completion).content, content, 'echoed');
      assert.equal(deltas.join(''), content);
    }
    // A tool call has no words to wait between: a delay on one is a mistake, not something to ignore.
    assert.equal(parseScript(script([{ tool: 'a', arguments: {}, delay_ms: 10 }])), undefined);
  });

  test('an abort during a delay ends the call at once with the signal’s reason', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const reason = new Error('stopped');
    const messages: ChatMessage[] = [{ role: 'user', content: script([{ reply: 'slow and steady', delay_ms: 2000 }]) }];
    const { deltas, completion } = listened({ model: 'script', system: '', messages, signal: controller.signal });
    const outcome = completion.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(100);
    controller.abort(reason);
    // No clock moves: the rejection must not wait for the timer.
    assert.equal(await outcome, reason);
    assert.deepEqual(deltas, ['slow ']);
    assert.equal(vi.getTimerCount(), 0);
  });

  test('an abort from inside onText stops the words that follow', async () => {
    const controller = new AbortController();
    const deltas: string[] = [];
    const onText = (delta: string) => {
      deltas.push(delta);
      if (deltas.length === 2) controller.abort();
    };
    const messages: ChatMessage[] = [{ role: 'user', content: 'one two three four' }];
    await assert.rejects(localProvider.complete({ model: 'echo', system: '', messages, signal: controller.signal, onText }), { name: 'AbortError' });
    assert.deepEqual(deltas, ['one ', 'two ']);
  });
});
