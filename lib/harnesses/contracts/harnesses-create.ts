import { defineEndpoint } from '#platform/http/contract.js';
import { CreateHarnessBody } from '../schemas.js';
import { HARNESSES_TAG } from './tags.js';

export const HarnessesCreate = defineEndpoint({
  id: 'HarnessesCreate',
  method: 'POST',
  path: '/v2/harnesses',
  handler: 'functions/harnesses/create.ts',
  auth: 'bearer',
  body: CreateHarnessBody,
  idempotency: 'required',
  table: 'readwrite',
  operationId: 'createHarness',
  summary: 'Create a harness',
  description: [
    'A harness is an agent definition: a set of text files with `harness.json` at the root, `{"model": "<provider>/<model>", "instructions": "<path of a file in the set>", "tools": [{"name", "require_approval"?}], "mcp_servers": [{"name", "url"}], "max_turns": N}`. `model` and `instructions` are required; `tools` and `mcp_servers` default to none (at most 256 and 16), `max_turns` to 10 (1 to 50); server names are 1 to 32 of `[a-zA-Z0-9_-]`, unique; server URLs absolute `https:` (or `http:` where the operator allows it; the address guard is applied when a server is called, not here). Fields harness.json does not have are refused. Harnesses are immutable: a change is a new harness.',
    'Files: paths relative and `/`-separated (no leading `/`, no `..`, `.` or empty segment, no backslash or control character, at most 256 bytes), unique; contents text (no NUL or other control character but tab, newline, carriage return, backspace and form feed) of at most 256 KiB of UTF-8 each; at most 100 files and 1 MiB in all, which keeps every harness within Lambda’s 6 MB payload limit when it is sent and read back.',
    'Any breach is 400 `harness_files_invalid`, whose `detail` names every offending path and whose `errors` has one entry per offending path: `name` is the path itself (the pointer `/files/<i>/path` for an empty path; `/files` for the whole set: too many files or bytes), `location` `body`, `reason` everything wrong with it, `code` the first of `path_empty`, `path_absolute`, `path_parent_segment`, `path_invalid`, `path_too_long`, `path_duplicate`, `file_too_large`, `not_text`, `too_many_files`, `files_too_large`, `harness_json_missing`, `harness_json_invalid` (the reason says what is wrong, naming fields by JSON Pointer into harness.json).',
    'Whether the model’s provider is configured, or the instructions file empty, is not checked here: a run of such a harness answers 422 `harness_not_runnable`. Requires `Idempotency-Key`; a retry with the same key and body returns the first answer with `Idempotency-Replayed: true`.',
  ].join('\n\n'),
  tags: [HARNESSES_TAG],
  responses: () =>
    import('../openapi/harnesses-responses.js').then(({ HarnessCreatedSchema }) => ({
      201: { description: 'The harness.', schema: HarnessCreatedSchema },
      400: 'The files are not a harness (`harness_files_invalid`, naming every offending path), a bad body (`invalid_json`, `invalid_body`, `unknown_field`), or a missing or malformed Idempotency-Key (`idempotency_key_required`, `idempotency_key_invalid`).',
      409: 'An idempotency conflict (`idempotency_key_conflict`; `idempotency_key_in_flight`, with `Retry-After`).',
      422: '`name` or `files` is missing or of the wrong type (`validation_failed`).',
    })),
});
