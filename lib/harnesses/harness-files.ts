import type { FieldError } from '#platform/errors.js';
import { HarnessFilesInvalidError } from './errors.js';
import { type HarnessConfig, parseHarnessConfig } from './harness-config.js';

/**
 * What makes a set of files a harness (decisions.md, "Harnesses and
 * machines"), checked whole so that every offending path is named at once:
 *
 * - a path is relative: not empty, no leading `/`, no `..`, `.` or empty
 *   segment, no backslash or control character, at most PATH_MAX_BYTES
 *   bytes of UTF-8; no two files have the same path;
 * - a file is text: at most FILE_MAX_BYTES bytes of UTF-8, no NUL or other
 *   control character but tab, newline, carriage return, backspace and form
 *   feed, no unpaired UTF-16 surrogate;
 * - at most MAX_FILES files and TOTAL_MAX_BYTES bytes in all. A request
 *   reaches its Lambda function as JSON inside the JSON of the event, and the
 *   harness goes back the same way on GET, so each content byte can take up
 *   to 4 bytes there (a quote or backslash escaped twice; the control
 *   characters that JSON writes as `\u00XX` are refused for this reason):
 *   1 MiB of files stays under Lambda's 6 MB payload limit both ways;
 * - `harness.json` is at the root and is a valid configuration
 *   (./harness-config.ts).
 *
 * Any breach is 400 `harness_files_invalid` with one `errors` entry per
 * offending path, named by the path itself (location `body`), its reason
 * saying everything wrong with it; the detail names every one. Breaches of
 * the set as a whole (too many files, too many bytes) are one entry named
 * `/files`, and a path that is empty is named by the pointer of the field
 * that holds it (`/files/3/path`). Paths longer than 300 characters are cut
 * short (with `…`) where they are named.
 */

export const FILE_MAX_BYTES = 256 * 1024;
export const TOTAL_MAX_BYTES = 1024 * 1024;
export const MAX_FILES = 100;
export const PATH_MAX_BYTES = 256;
export const HARNESS_JSON = 'harness.json';

export interface HarnessFile {
  path: string;
  content: string;
}

/** A valid set: its configuration, its files with their sizes, and whether the instructions file has any text. */
export interface ValidHarnessFiles {
  config: HarnessConfig;
  files: Array<HarnessFile & { bytes: number }>;
  totalBytes: number;
  instructionsEmpty: boolean;
}

/** Tab, newline, form feed, carriage return and backspace: the C0 controls JSON writes in two bytes (`\t`...). */
const JSON_SHORT_ESCAPES = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A control character that JSON can only write as `\u00XX` (every C0 one but the short escapes). */
function hasUnsafeControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 && !JSON_SHORT_ESCAPES.has(code)) return true;
  }
  return false;
}

/** Any C0 control character or DEL. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

const NAME_MAX_CHARS = 300;

/** How an `errors` entry names a file: by its path (cut short past NAME_MAX_CHARS), or by the pointer of an empty path. */
const nameOf = (path: string, index: number) =>
  path === '' ? `/files/${index}/path` : path.length > NAME_MAX_CHARS ? `${path.slice(0, NAME_MAX_CHARS)}…` : path;

/** What is wrong with a path on its own, each a phrase. */
function pathProblems(path: string): Array<[code: string, reason: string]> {
  const problems: Array<[string, string]> = [];
  if (path.startsWith('/')) problems.push(['path_absolute', 'starts with "/": paths are relative to the harness root']);
  const segments = path.replace(/^\/+/, '').split('/');
  if (segments.includes('..')) problems.push(['path_parent_segment', 'has a ".." segment']);
  if (segments.includes('.')) problems.push(['path_invalid', 'has a "." segment']);
  if (segments.includes('')) problems.push(['path_invalid', 'has an empty segment (a doubled or trailing "/")']);
  if (path.includes('\\')) problems.push(['path_invalid', 'contains a backslash; separate directories with "/"']);
  if (hasControl(path) || LONE_SURROGATE.test(path)) problems.push(['path_invalid', 'contains a control character or an unpaired surrogate']);
  const bytes = Buffer.byteLength(path, 'utf8');
  if (bytes > PATH_MAX_BYTES) problems.push(['path_too_long', `is ${bytes} bytes long; at most ${PATH_MAX_BYTES}`]);
  return problems;
}

function contentProblems(content: string, bytes: number): Array<[string, string]> {
  const problems: Array<[string, string]> = [];
  if (bytes > FILE_MAX_BYTES) problems.push(['file_too_large', `is ${bytes} bytes; a file is at most ${FILE_MAX_BYTES} bytes (256 KiB) of UTF-8`]);
  if (hasUnsafeControl(content)) problems.push(['not_text', 'is not text: it contains NUL or another control character']);
  if (LONE_SURROGATE.test(content)) problems.push(['not_text', 'is not text: it contains an unpaired UTF-16 surrogate']);
  return problems;
}

/** Problems by the name of their `errors` entry, in the order they were found. */
class Problems {
  private readonly byName = new Map<string, { codes: string[]; reasons: string[] }>();

  add(name: string, code: string, reason: string): void {
    const entry = this.byName.get(name) ?? { codes: [], reasons: [] };
    if (!entry.reasons.includes(reason)) entry.reasons.push(reason);
    entry.codes.push(code);
    this.byName.set(name, entry);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  get size(): number {
    return this.byName.size;
  }

  /** One entry per name: the files' in the order they were sent (by `rank`), then the set's. */
  entries(rank: (name: string) => number): FieldError[] {
    return [...this.byName]
      .map(([name, { codes, reasons }]) => ({ name, location: 'body' as const, reason: reasons.join('; '), code: codes[0]! }))
      .sort((a, b) => rank(a.name) - rank(b.name));
  }
}

/** The files as a harness, or HarnessFilesInvalidError naming every offending path. */
export function validateHarnessFiles(files: readonly HarnessFile[]): ValidHarnessFiles {
  const problems = new Problems();
  const counts = new Map<string, number>();
  for (const { path } of files) counts.set(path, (counts.get(path) ?? 0) + 1);
  /** Where each name is first sent: the order of the entries. */
  const first = new Map<string, number>();
  let totalBytes = 0;
  const sized = files.map((file, index) => {
    const bytes = Buffer.byteLength(file.content, 'utf8');
    totalBytes += bytes;
    const name = nameOf(file.path, index);
    if (!first.has(name)) first.set(name, index);
    if (file.path === '') problems.add(name, 'path_empty', 'a path is empty');
    else for (const [code, reason] of pathProblems(file.path)) problems.add(name, code, reason);
    const count = counts.get(file.path)!;
    if (count > 1 && file.path !== '') problems.add(name, 'path_duplicate', `is the path of ${count} files; paths are unique`);
    for (const [code, reason] of contentProblems(file.content, bytes)) problems.add(name, code, reason);
    return { ...file, bytes };
  });
  if (files.length > MAX_FILES) problems.add('/files', 'too_many_files', `there are ${files.length} files; a harness has at most ${MAX_FILES}`);
  if (totalBytes > TOTAL_MAX_BYTES) {
    problems.add('/files', 'files_too_large', `the files hold ${totalBytes} bytes in all; a harness holds at most ${TOTAL_MAX_BYTES} (1 MiB) of UTF-8`);
  }

  const manifest = sized.find((file) => file.path === HARNESS_JSON);
  let config: HarnessConfig | undefined;
  if (!manifest) {
    problems.add(HARNESS_JSON, 'harness_json_missing', `is missing: a harness has ${HARNESS_JSON} at the root of its files`);
  } else if (!problems.has(HARNESS_JSON)) {
    const parsed = parseHarnessConfig(manifest.content, new Set(files.map((f) => f.path)));
    for (const problem of parsed.problems) problems.add(HARNESS_JSON, 'harness_json_invalid', problem);
    config = parsed.config;
  }
  if (problems.size > 0 || !config) throw new HarnessFilesInvalidError(problems.entries((name) => first.get(name) ?? files.length));
  const instructions = config.instructions;
  return { config, files: sized, totalBytes, instructionsEmpty: !/\S/.test(sized.find((f) => f.path === instructions)!.content) };
}
