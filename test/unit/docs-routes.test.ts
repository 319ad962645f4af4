/**
 * Every route README.md and the documents under docs/ name is one the service
 * serves, so a reader is never sent to a path that answers 404 or 405.
 *
 * What counts as naming a route:
 *
 * - a method and a path, anywhere (prose, tables, code): `GET /v2/runs/{id}`,
 *   `POST /v1/workflow-requests/run`, `GET/PATCH/DELETE /v1/webhook-endpoints/{id}`;
 * - in a code block, a curl of the local service: `curl -s -X POST $BASE/v2/runs`,
 *   `"$BASE_URL/healthz"`, `http://127.0.0.1:3000/v1/...`; its method is
 *   curl's (`-X`, else POST with a body, else GET);
 * - a full local URL anywhere else (`http://127.0.0.1:3000/docs`, a JSON
 *   value in a comment): served by some method.
 *
 * Paths are normalised (query string and fragment dropped, `$(...)` read as
 * an id) and matched against SERVED_ROUTES with the service's own matcher
 * (lib/platform/http/routing.ts, API Gateway's rules), without the `$default`
 * route that answers everything else with 404. Addresses that are not the
 * service (webhook receivers, MCP servers on other ports, AWS) are not looked at.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'vitest';
import { SERVED_ROUTES } from '#app/served-routes.generated.js';
import { allowedMethods, matchRoute } from '#platform/http/routing.js';
import { documents, REPO_ROOT } from '../helpers/docs-files.js';

const ROOT = REPO_ROOT;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const ROUTES = SERVED_ROUTES.filter((route) => route.path !== '$default');

/**
 * Shorthands a document uses for a route it has named in full, by document:
 * docs/benchmarks.md, which `npm run bench` writes (bench/report.ts), calls
 * `POST /v1/workflow-requests/run` `POST /run`.
 * Each stands for its full route, which must be served like any other.
 */
const SHORTHANDS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'docs/benchmarks.md': { 'POST /run': 'POST /v1/workflow-requests/run' },
};

/** The route a document means: its shorthand's full route, else what it says. */
function meant(document: string, route: NamedRoute): NamedRoute {
  const full = route.method && SHORTHANDS[document]?.[`${route.method} ${route.path}`];
  if (!full) return route;
  const [method, path] = full.split(' ');
  return { ...route, method, path: path! };
}

/** A route a document names: `method` undefined for a bare URL, which any method may serve. */
interface NamedRoute {
  line: number;
  method: string | undefined;
  path: string;
  /** What the document says, for the failure message. */
  text: string;
}

const METHOD_AND_PATH = new RegExp(`(?<![A-Za-z])((?:${METHODS.join('|')})(?:/(?:${METHODS.join('|')}))*)\\s+(/[^\\s\`'"<>|)\\]\\\\]*)`, 'g');
/** The service root as the documents write it: the local address, or the shell variables the examples set to it. */
const SERVICE_URL = /(?:http:\/\/127\.0\.0\.1:3000|\$\{?BASE(?:_URL)?\}?(?![A-Za-z0-9_]))(\/[^\s`'"<>|)\]\\]*)?/g;
const LOCAL_URL = /http:\/\/127\.0\.0\.1:3000(\/[^\s`'"<>|)\]\\]*)?/g;

/** The path alone: no query string or fragment, no sentence punctuation after it. */
function normalise(path: string): string {
  const bare = path.split(/[?#]/)[0]!.replace(/[.,;:!]+$/, '');
  return bare === '' ? '/' : bare;
}

/** A command substitution that is no curl (`$(jq -r .id <<<"$HOOK")`) stands for an id in a path. */
const withIdsForSubstitutions = (text: string): string => text.replace(/\$\((?![^()]*\bcurl\b)[^()]*\)/g, 'ID');

/** curl's method: `-X`/`--request`, else POST when it sends a body, else GET. */
function curlMethod(command: string): string {
  const explicit = /(?:^|\s)(?:-X|--request)\s*([A-Z]+)/.exec(command);
  if (explicit) return explicit[1]!;
  return /(?:^|\s)(?:-d|--data(?:-raw|-binary|-urlencode)?|--json|-F|--form)(?:\s|=)/.test(command) ? 'POST' : 'GET';
}

/** Shell lines joined where a command goes on: a trailing backslash, or a single-quoted string still open. */
function logicalCommands(lines: ReadonlyArray<{ line: number; text: string }>): Array<{ line: number; text: string }> {
  const commands: Array<{ line: number; text: string }> = [];
  let current: { line: number; text: string } | undefined;
  let openQuote = false;
  for (const { line, text } of lines) {
    if (current) current.text += `\n${text}`;
    else current = { line, text };
    const code = text.trimStart().startsWith('#') ? '' : text.replace(/\s#\s.*$/, '');
    if ((code.replaceAll("\\'", '').match(/'/g)?.length ?? 0) % 2 === 1) openQuote = !openQuote;
    if (!openQuote && !text.endsWith('\\')) {
      commands.push(current);
      current = undefined;
    }
  }
  if (current) commands.push(current);
  return commands;
}

/** Every route a Markdown document names, with the line it is on. */
function namedRoutes(markdown: string): NamedRoute[] {
  const found: NamedRoute[] = [];
  const lines = markdown.split('\n');
  const code: Array<Array<{ line: number; text: string }>> = [];
  let fence: string | undefined;
  lines.forEach((text, index) => {
    const line = index + 1;
    for (const match of text.matchAll(METHOD_AND_PATH)) {
      for (const method of match[1]!.split('/')) found.push({ line, method, path: normalise(match[2]!), text: match[0] });
    }
    const marker = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence === undefined && marker) {
      fence = marker;
      code.push([]);
      return;
    }
    if (fence !== undefined && marker && marker[0] === fence[0] && marker.length >= fence.length && text.trim() === marker) {
      fence = undefined;
      return;
    }
    if (fence !== undefined) {
      code.at(-1)!.push({ line, text });
      return;
    }
    for (const match of text.matchAll(LOCAL_URL)) {
      if (match[1]) found.push({ line, method: undefined, path: normalise(match[1]), text: match[0] });
    }
  });
  for (const block of code) {
    for (const command of logicalCommands(block)) {
      const text = withIdsForSubstitutions(command.text);
      // Each curl's text runs to the next curl; a URL before the first one belongs to no curl.
      const starts = [...text.matchAll(/\bcurl\s/g)].map((m) => m.index);
      const curlAt = (position: number) => starts.filter((start) => start <= position).at(-1);
      for (const match of text.matchAll(SERVICE_URL)) {
        if (!match[1]) continue;
        const start = curlAt(match.index);
        const next = starts.find((s) => s > match.index) ?? text.length;
        const method = start === undefined ? undefined : curlMethod(text.slice(start, next));
        if (method === undefined && !match[0].startsWith('http')) continue;
        const line = command.line + (text.slice(0, match.index).match(/\n/g)?.length ?? 0);
        found.push({ line, method, path: normalise(match[1]), text: match[0] });
      }
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

/** Whether the service answers the route: by this method, or (a bare URL) by any. */
function served(route: Pick<NamedRoute, 'method' | 'path'>, routes: readonly { method: string; path: string }[] = ROUTES): boolean {
  if (route.method === undefined) return allowedMethods(route.path, routes).length > 0;
  return matchRoute(route.method, route.path, routes) !== undefined;
}

describe('the extractor', () => {
  const markdown = [
    '# Doc', // 1
    'Create one with `POST /v2/runs` (see `GET /v2/runs/{id}`, and `GET/PATCH /v1/webhook-endpoints/{id}`).', // 2
    'The console is at <http://127.0.0.1:3000/>, the reference at http://127.0.0.1:3000/docs.', // 3
    '```sh', // 4
    'R=$(curl -s -X POST $BASE/v2/runs -H "Authorization: Bearer $TOKEN" \\', // 5
    "  -d '{}' | jq -er .id)", // 6
    'curl -s "$BASE/v2/runs?status=queued&limit=5" -H "Authorization: Bearer $TOKEN"', // 7
    'curl -s $BASE/v1/machines -d \'{"name":', // 8
    '  "m"}\'', // 9
    'curl -s -X POST $BASE/v1/hooks/$(jq -r .id <<<"$HOOK")/rotate-secret', // 10
    '# {"url":"http://127.0.0.1:3000/v1/hooks/hook_…/events"}', // 11
    'curl -s "$BASE_URL/healthz"; BASE=http://127.0.0.1:3000', // 12
    'curl -s http://127.0.0.1:8808/json https://hooks.example.com/wf', // 13
    '```', // 14
  ].join('\n');

  test('finds methods with paths, bare URLs, and curls of the service with their methods; ids and queries normalised', () => {
    assert.deepEqual(
      namedRoutes(markdown).map(({ line, method, path }) => [line, method ?? 'any', path]),
      [
        [2, 'POST', '/v2/runs'],
        [2, 'GET', '/v2/runs/{id}'],
        [2, 'GET', '/v1/webhook-endpoints/{id}'],
        [2, 'PATCH', '/v1/webhook-endpoints/{id}'],
        [3, 'any', '/'],
        [3, 'any', '/docs'],
        [5, 'POST', '/v2/runs'],
        [7, 'GET', '/v2/runs'],
        [8, 'POST', '/v1/machines'],
        [10, 'POST', '/v1/hooks/ID/rotate-secret'],
        [11, 'any', '/v1/hooks/hook_…/events'],
        [12, 'GET', '/healthz'],
      ],
    );
  });

  test('matches as the service does: parameters take any segment, the method counts, a bare URL takes any method', () => {
    const routes = [
      { method: 'GET', path: '/v2/runs/{id}' },
      { method: 'POST', path: '/v1/hooks/{id}/events' },
    ];
    assert.ok(served({ method: 'GET', path: '/v2/runs/$R' }, routes));
    assert.ok(!served({ method: 'POST', path: '/v2/runs/$R' }, routes));
    assert.ok(served({ method: undefined, path: '/v1/hooks/hook_…/events' }, routes));
    assert.ok(!served({ method: 'GET', path: '/v2/runs/$R/fork' }, routes));
  });
});

describe('the documents name only routes the service serves', () => {
  test.each(documents())('%s', (document) => {
    const unserved = namedRoutes(readFileSync(join(ROOT, document), 'utf8')).filter((route) => !served(meant(document, route)));
    assert.deepEqual(
      unserved.map(({ line, method, path, text }) => `${document}:${line}: ${method ?? 'any method'} ${path} (written \`${text}\`) is not served`),
      [],
      `${document} names routes that lib/app/served-routes.generated.ts does not serve`,
    );
  });
});
