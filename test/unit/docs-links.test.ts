/**
 * Every relative link of README.md and of the documents under docs/ leads
 * somewhere: to a file or folder of the repository, and, with a `#fragment`
 * into a Markdown file, to one of its headings (the anchor GitHub makes of
 * it) or an explicit `<a id>`/`<a name>`. Links with a scheme (`https:`,
 * `mailto:`) are not looked at; links inside code are not links.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, test } from 'vitest';
import { documents, REPO_ROOT } from '../helpers/docs-files.js';

const ROOT = REPO_ROOT;

/** The lines of a Markdown text outside fenced code blocks, with inline code spans blanked out. */
function proseLines(markdown: string): Array<{ line: number; text: string }> {
  const prose: Array<{ line: number; text: string }> = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence === undefined && marker) {
      fence = marker;
      return;
    }
    if (fence !== undefined) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && text.trim() === marker) fence = undefined;
      return;
    }
    prose.push({ line: index + 1, text: text.replace(/(`+)[\s\S]*?\1/g, (span) => ' '.repeat(span.length)) });
  });
  return prose;
}

/** GitHub's anchor for a heading: its text lower-cased, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // HTML tags
    .replace(/[`*]/g, '') // code spans and emphasis
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Every anchor a Markdown text offers: its headings' (numbered when repeated, as GitHub does) and explicit ids. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const text of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence === undefined && marker) {
      fence = marker;
      continue;
    }
    if (fence !== undefined) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && text.trim() === marker) fence = undefined;
      continue;
    }
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading !== undefined) {
      const base = slug(heading);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      found.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(m[1]!);
  }
  return found;
}

/** The links of a Markdown text: inline `[text](target)` and reference definitions `[id]: target`. */
function links(markdown: string): Array<{ line: number; target: string }> {
  const found: Array<{ line: number; target: string }> = [];
  for (const { line, text } of proseLines(markdown)) {
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ line, target: m[1]! });
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(text);
    if (definition) found.push({ line, target: definition[1]! });
  }
  return found;
}

/** What is wrong with a link of `document` (a path from the root), or undefined when it leads somewhere. */
function brokenLink(document: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [pathPart, fragment] = target.split('#', 2) as [string, string | undefined];
  const path =
    pathPart === ''
      ? document
      : normalize(join(dirname(document), decodeURIComponent(pathPart)))
          .split('\\')
          .join('/');
  if (path.startsWith('..')) return `${target} leads out of the repository`;
  if (!existsSync(join(ROOT, path))) return `${target}: ${path} does not exist`;
  if (fragment === undefined || fragment === '' || !path.endsWith('.md')) return undefined;
  const offered = anchors(readFileSync(join(ROOT, path), 'utf8'));
  return offered.has(decodeURIComponent(fragment).toLowerCase()) ? undefined : `${target}: ${path} has no heading with the anchor #${fragment}`;
}

describe('the link reader', () => {
  test("makes GitHub's anchors: punctuation dropped, code and links by their text, repeats numbered", () => {
    assert.equal(slug('Outbound: webhook endpoints'), 'outbound-webhook-endpoints');
    assert.equal(slug("A model provider's key"), 'a-model-providers-key');
    assert.equal(slug('Hooks (lib/hooks)'), 'hooks-libhooks');
    assert.equal(slug('Worked example: `GET /v1/machines/{id}`'), 'worked-example-get-v1machinesid');
    assert.equal(slug('The service key (webhook secrets, cursors)'), 'the-service-key-webhook-secrets-cursors');
    assert.deepEqual([...anchors('# A\n## Notes\n```\n# not a heading\n```\n## Notes\n<a id="x"></a>')], ['a', 'notes', 'notes-1', 'x']);
  });

  test('finds inline links and definitions, not those in code', () => {
    const text = ['See [a](a.md) and [b](<b.md> "title").', '`[not](x.md)`', '```', '[not](y.md)', '```', '[ref]: docs/z.md#part'].join('\n');
    assert.deepEqual(links(text), [
      { line: 1, target: 'a.md' },
      { line: 1, target: 'b.md' },
      { line: 6, target: 'docs/z.md#part' },
    ]);
  });
});

describe('the documents’ relative links lead somewhere', () => {
  test.each(documents())('%s', (document) => {
    const broken = links(readFileSync(join(ROOT, document), 'utf8'))
      .map(({ line, target }) => ({ line, why: brokenLink(document, target) }))
      .filter((link) => link.why !== undefined)
      .map(({ line, why }) => `${document}:${line}: ${why}`);
    assert.deepEqual(broken, [], `${document} has links that lead nowhere`);
  });
});
