import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { HarnessFilesInvalidError } from '#harnesses/errors.js';
import { MAX_TURNS } from '#harnesses/harness-config.js';
import { FILE_MAX_BYTES, type HarnessFile, MAX_FILES, PATH_MAX_BYTES, TOTAL_MAX_BYTES, validateHarnessFiles } from '#harnesses/harness-files.js';
import type { FieldError } from '#platform/errors.js';

const manifest = (config: Record<string, unknown> = {}): HarnessFile => ({
  path: 'harness.json',
  content: JSON.stringify({ model: 'local/echo', instructions: 'prompt.md', ...config }),
});
const prompt: HarnessFile = { path: 'prompt.md', content: 'You are helpful.' };
const harness = (...extra: HarnessFile[]): HarnessFile[] => [manifest(), prompt, ...extra];

/** The error's entries, and its detail, when `files` is refused. */
function refused(files: HarnessFile[]): { errors: FieldError[]; detail: string } {
  try {
    validateHarnessFiles(files);
  } catch (error) {
    assert.ok(error instanceof HarnessFilesInvalidError, String(error));
    assert.equal(error.code, 'harness_files_invalid');
    assert.equal(error.kind, 'malformed');
    return { errors: error.options.errors!, detail: error.detail };
  }
  assert.fail('the files were accepted');
}
const named = (files: HarnessFile[]) => refused(files).errors.map((e) => e.name);
const codeOf = (files: HarnessFile[], name: string) => refused(files).errors.find((e) => e.name === name)?.code;

describe('a valid harness', () => {
  test('is its parsed configuration with defaults, its files with their UTF-8 sizes, and whether the instructions are empty', () => {
    const files = harness({ path: 'docs/ünïcode.md', content: 'é€😀' });
    const valid = validateHarnessFiles(files);
    assert.deepEqual(valid.config, { model: 'local/echo', instructions: 'prompt.md', tools: [], mcp_servers: [], max_turns: MAX_TURNS.default });
    assert.deepEqual(
      valid.files.map((f) => [f.path, f.bytes]),
      [
        ['harness.json', Buffer.byteLength(files[0]!.content)],
        ['prompt.md', 16],
        ['docs/ünïcode.md', 2 + 3 + 4],
      ],
    );
    assert.equal(valid.totalBytes, Buffer.byteLength(files[0]!.content) + 16 + 9);
    assert.equal(valid.instructionsEmpty, false);
    assert.equal(validateHarnessFiles([manifest(), { path: 'prompt.md', content: ' \n\t ' }]).instructionsEmpty, true);
  });

  test('a full harness.json: tools with approval, servers, max_turns at both ends of its range', () => {
    for (const max_turns of [MAX_TURNS.min, MAX_TURNS.max]) {
      const config = {
        tools: [{ name: 'ask_user' }, { name: 'search__find', require_approval: true }],
        mcp_servers: [
          { name: 'search', url: 'https://mcp.example.com/mcp' },
          { name: 'A-b_9', url: 'http://10.0.0.1:8080/' },
        ],
        max_turns,
      };
      const valid = validateHarnessFiles([manifest(config), prompt]);
      assert.deepEqual(valid.config, {
        model: 'local/echo',
        instructions: 'prompt.md',
        tools: [
          { name: 'ask_user', require_approval: false },
          { name: 'search__find', require_approval: true },
        ],
        mcp_servers: config.mcp_servers,
        max_turns,
      });
    }
  });

  test('models may have slashes, dots and colons after the provider; any provider is well-formed here', () => {
    for (const model of ['bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0', 'openai/meta-llama/Llama-3-70b', 'acme/x']) {
      assert.equal(validateHarnessFiles([manifest({ model }), prompt]).config.model, model);
    }
  });

  test('a file of exactly 256 KiB and a total of exactly 1 MiB are allowed', () => {
    const base = harness();
    const used = base.reduce((n, f) => n + Buffer.byteLength(f.content), 0);
    const big = (n: number, bytes: number) => ({ path: `big-${n}.txt`, content: 'x'.repeat(bytes) });
    const files = [...base, big(1, FILE_MAX_BYTES), big(2, FILE_MAX_BYTES), big(3, FILE_MAX_BYTES), big(4, TOTAL_MAX_BYTES - 3 * FILE_MAX_BYTES - used)];
    assert.equal(validateHarnessFiles(files).totalBytes, TOTAL_MAX_BYTES);
    assert.equal(validateHarnessFiles([...harness(), { path: 'a'.repeat(PATH_MAX_BYTES), content: '' }]).files.length, 3);
  });

  test('instructions may be in a subdirectory and harness.json may name itself nowhere else', () => {
    const valid = validateHarnessFiles([manifest({ instructions: 'prompts/system.md' }), { path: 'prompts/system.md', content: 'hi' }]);
    assert.equal(valid.config.instructions, 'prompts/system.md');
  });
});

describe('paths', () => {
  const cases: Array<[path: string, code: string]> = [
    ['/etc/passwd', 'path_absolute'],
    ['../secret', 'path_parent_segment'],
    ['a/../../b', 'path_parent_segment'],
    ['..', 'path_parent_segment'],
    ['./a', 'path_invalid'],
    ['a//b', 'path_invalid'],
    ['dir/', 'path_invalid'],
    ['a\\b', 'path_invalid'],
    ['a\u0000b', 'path_invalid'],
    ['tab\there', 'path_invalid'],
    ['a'.repeat(PATH_MAX_BYTES + 1), 'path_too_long'],
    ['é'.repeat(PATH_MAX_BYTES / 2 + 1), 'path_too_long'],
  ];
  for (const [path, code] of cases) {
    test(`${JSON.stringify(path.slice(0, 20))} is refused (${code}), named by the path itself`, () => {
      const { errors, detail } = refused(harness({ path, content: 'x' }));
      assert.deepEqual(
        errors.map((e) => [e.name, e.location, e.code]),
        [[path, 'body', code]],
      );
      assert.ok(detail.includes(JSON.stringify(path)), detail);
    });
  }

  test('an empty path is named by its pointer', () => {
    const { errors, detail } = refused(harness({ path: '', content: 'x' }));
    assert.deepEqual(errors, [{ name: '/files/2/path', location: 'body', reason: 'a path is empty', code: 'path_empty' }]);
    assert.match(detail, /\/files\/2\/path: a path is empty/);
  });

  test('a duplicated path is one entry saying how many files have it', () => {
    const { errors } = refused(harness({ path: 'notes.md', content: 'a' }, { path: 'notes.md', content: 'b' }, { path: 'notes.md', content: 'c' }));
    assert.deepEqual(errors, [{ name: 'notes.md', location: 'body', reason: 'is the path of 3 files; paths are unique', code: 'path_duplicate' }]);
  });

  test('case and Unicode form make different paths', () => {
    assert.equal(validateHarnessFiles(harness({ path: 'Prompt.md', content: 'a' }, { path: 'PROMPT.md', content: 'b' })).files.length, 4);
  });

  test('everything wrong with one path is in its one entry', () => {
    const { errors } = refused(harness({ path: '/a/../b//', content: 'x' }));
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.code, 'path_absolute');
    for (const phrase of ['starts with "/"', 'has a ".." segment', 'has an empty segment']) assert.ok(errors[0]!.reason.includes(phrase), errors[0]!.reason);
  });

  test('a very long path is cut short where it is named', () => {
    const path = 'p'.repeat(5000);
    const { errors, detail } = refused(harness({ path, content: 'x' }));
    assert.equal(errors[0]!.name, `${'p'.repeat(300)}…`);
    assert.ok(detail.length < 1000);
  });
});

describe('contents', () => {
  test('a file one byte over 256 KiB is refused, counting UTF-8 bytes, not characters', () => {
    assert.equal(codeOf(harness({ path: 'big.txt', content: 'x'.repeat(FILE_MAX_BYTES + 1) }), 'big.txt'), 'file_too_large');
    // 87382 three-byte characters: under the limit in characters, over it in bytes.
    const wide = '€'.repeat(Math.floor(FILE_MAX_BYTES / 3) + 1);
    assert.ok(wide.length < FILE_MAX_BYTES);
    const { errors } = refused(harness({ path: 'wide.txt', content: wide }));
    assert.equal(errors[0]!.code, 'file_too_large');
    assert.match(errors[0]!.reason, /is 262146 bytes/);
  });

  test('text only: NUL, other control characters and unpaired surrogates are refused; tab, newlines, form feed are text', () => {
    for (const content of ['a\u0000b', 'bell\u0007', 'esc\u001b[0m', 'lone \ud800 high', 'lone \udc00 low']) {
      assert.equal(codeOf(harness({ path: 'bin', content }), 'bin'), 'not_text', JSON.stringify(content));
    }
    assert.equal(validateHarnessFiles(harness({ path: 'ok', content: 'a\tb\nc\r\nd\fe\bf 😀' })).files.length, 3);
  });
});

describe('the set', () => {
  test(`more than ${MAX_FILES} files is one entry named /files`, () => {
    const many = Array.from({ length: MAX_FILES - 1 }, (_, i) => ({ path: `f${i}`, content: '' }));
    assert.deepEqual(named([...harness(), ...many]), ['/files']);
    assert.equal(codeOf([...harness(), ...many], '/files'), 'too_many_files');
    assert.equal(validateHarnessFiles([...harness(), ...many.slice(1)]).files.length, MAX_FILES);
  });

  test('more than 1 MiB in all is one entry named /files', () => {
    const quarter = (n: number) => ({ path: `q${n}`, content: 'x'.repeat(FILE_MAX_BYTES) });
    const { errors } = refused([...harness(), quarter(1), quarter(2), quarter(3), quarter(4)]);
    assert.deepEqual(
      errors.map((e) => [e.name, e.code]),
      [['/files', 'files_too_large']],
    );
    assert.match(errors[0]!.reason, /at most 1048576/);
  });
});

describe('harness.json', () => {
  const problemOf = (content: string, extra: HarnessFile[] = [prompt]) => {
    const { errors, detail } = refused([{ path: 'harness.json', content }, ...extra]);
    assert.deepEqual(
      errors.map((e) => e.name),
      ['harness.json'],
    );
    assert.ok(detail.includes('"harness.json"'), detail);
    return errors[0]!;
  };
  const config = (fields: Record<string, unknown>) => JSON.stringify({ model: 'local/echo', instructions: 'prompt.md', ...fields });

  test('missing', () => {
    const { errors } = refused([prompt]);
    assert.deepEqual(errors, [
      { name: 'harness.json', location: 'body', reason: 'is missing: a harness has harness.json at the root of its files', code: 'harness_json_missing' },
    ]);
    // Not at the root.
    assert.equal(codeOf([{ ...manifest(), path: 'sub/harness.json' }, prompt], 'harness.json'), 'harness_json_missing');
  });

  test('not JSON, or not an object', () => {
    assert.deepEqual([problemOf('{model:').code, problemOf('{model:').reason], ['harness_json_invalid', 'it is not valid JSON']);
    assert.equal(problemOf('[1]').reason, 'it must be a JSON object');
    assert.equal(problemOf('null').reason, 'it must be a JSON object');
  });

  test('wrong shape: each field named by a pointer, every problem in the one entry', () => {
    const { reason } = problemOf(JSON.stringify({ instructions: 7, tools: [{ name: '' }, { name: 'x', approve: true }], extra: 1 }));
    for (const phrase of [
      '/model is required',
      '/instructions',
      '/tools/0/name',
      '/tools/1/approve is not a field of harness.json',
      '/extra is not a field of harness.json',
    ]) {
      assert.ok(reason.includes(phrase), `${phrase} in ${reason}`);
    }
  });

  test('a pointer escapes `~` and `/` in a field name (RFC 6901), so each names one field', () => {
    const { reason } = problemOf(JSON.stringify({ model: 'local/echo', instructions: 'prompt.md', 'a/b': 1, '~c': 2, tools: [{ name: 'x', 'd/~e': true }] }));
    for (const phrase of ['/a~1b is not a field', '/~0c is not a field', '/tools/0/d~1~0e is not a field'])
      assert.ok(reason.includes(phrase), `${phrase} in ${reason}`);
  });

  test('instructions naming no file of the set', () => {
    assert.equal(problemOf(config({ instructions: 'missing.md' })).reason, '/instructions names "missing.md", which is not a file of the set');
  });

  test('model not <provider>/<model>', () => {
    for (const model of ['echo', 'local/', '/echo', 'Local/echo', 'local/has space', 7]) {
      assert.match(problemOf(config({ model })).reason, /^\/model /, String(model));
    }
  });

  test('server names: 1-32 of [a-zA-Z0-9_-], unique; urls absolute http(s)', () => {
    const server = (name: string, url = 'https://x.example/mcp') => ({ name, url });
    for (const name of ['', 'a.b', 'a b', 'x'.repeat(33), 'ü']) {
      assert.match(problemOf(config({ mcp_servers: [server(name)] })).reason, /^\/mcp_servers\/0\/name must be 1 to 32/, name);
    }
    assert.equal(problemOf(config({ mcp_servers: [server('a'), server('b'), server('a')] })).reason, '/mcp_servers names the server "a" more than once');
    for (const url of ['ftp://x/', 'not a url', '/relative']) {
      assert.match(problemOf(config({ mcp_servers: [server('a', url)] })).reason, /^\/mcp_servers\/0\/url must be an absolute https: URL/, url);
    }
  });

  test('duplicate tool entries', () => {
    assert.equal(problemOf(config({ tools: [{ name: 'a' }, { name: 'a', require_approval: true }] })).reason, '/tools names the tool "a" more than once');
  });

  test(`max_turns outside ${MAX_TURNS.min}..${MAX_TURNS.max} or not an integer`, () => {
    for (const max_turns of [0, MAX_TURNS.max + 1, 2.5, '3', -1]) {
      assert.match(problemOf(config({ max_turns })).reason, /^\/max_turns /, String(max_turns));
    }
  });

  test('a harness.json that is itself an offending file is named once, for that', () => {
    const { errors } = refused([manifest(), manifest(), prompt]);
    assert.deepEqual(
      errors.map((e) => [e.name, e.code]),
      [['harness.json', 'path_duplicate']],
    );
  });
});

test('several breaches at once: every offending path named, each once, in the order sent, all in the detail', () => {
  const files: HarnessFile[] = [
    { path: 'harness.json', content: JSON.stringify({ model: 'nope', instructions: 'prompt.md', max_turns: 99 }) },
    prompt,
    { path: '../up', content: 'x' },
    { path: '/abs', content: 'x' },
    { path: 'dup', content: '1' },
    { path: 'dup', content: '2' },
    { path: 'huge', content: 'x'.repeat(FILE_MAX_BYTES + 10) },
    { path: 'bin', content: '\u0000' },
    { path: 'fine.md', content: 'ok' },
  ];
  const { errors, detail } = refused(files);
  assert.deepEqual(
    errors.map((e) => [e.name, e.code]),
    [
      ['harness.json', 'harness_json_invalid'],
      ['../up', 'path_parent_segment'],
      ['/abs', 'path_absolute'],
      ['dup', 'path_duplicate'],
      ['huge', 'file_too_large'],
      ['bin', 'not_text'],
    ],
  );
  assert.ok(errors.every((e) => e.location === 'body'));
  assert.match(errors[0]!.reason, /\/model must be .*; \/max_turns must be an integer from 1 to 50/);
  for (const path of ['harness.json', '../up', '/abs', 'dup', 'huge', 'bin']) assert.ok(detail.includes(JSON.stringify(path)), `${path} in ${detail}`);
  assert.ok(!detail.includes('fine.md'));
});
