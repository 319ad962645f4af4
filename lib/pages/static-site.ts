import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NotFoundError } from '#platform/errors.js';
import { header } from '#platform/http/responses.js';
import type { HttpEvent, HttpResult } from '#platform/http/types.js';
import { ENCODING_SUFFIX, type Encoding, MANIFEST_FILE, type WebFile, type WebManifest } from './model.js';

/**
 * The built pages and assets of one function. In a Lambda bundle they sit in
 * `web/` beside the handler (infra copies them there); `npm start` builds
 * them and names the directory in WEB_ASSETS_DIR.
 */
export interface StaticSite {
  find(path: string): WebFile | undefined;
  read(file: string): Buffer;
}

export const webAssetsDir = (): string => process.env.WEB_ASSETS_DIR || fileURLToPath(new URL('./web/', import.meta.url));

/** Reads the manifest on first use and keeps every file it served in memory: they never change in a deployed function. */
export function staticSite(dir: string = webAssetsDir()): StaticSite {
  let manifest: WebManifest | undefined;
  const contents = new Map<string, Buffer>();
  const load = (): WebManifest => {
    try {
      manifest ??= JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as WebManifest;
    } catch (cause) {
      throw new Error(`The console and reference pages are not built: no readable ${MANIFEST_FILE} in ${dir}.`, { cause });
    }
    return manifest;
  };
  return {
    find(path) {
      const { files } = load();
      return Object.hasOwn(files, path) ? files[path] : undefined;
    },
    read(file) {
      let content = contents.get(file);
      if (!content) {
        content = readFileSync(join(dir, file));
        contents.set(file, content);
      }
      return content;
    },
  };
}

/** Headers every page and asset carries: nothing sniffed, nothing framed, no referrer to other origins. */
const COMMON_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
} as const;

const PAGE_HEADERS = { 'X-Frame-Options': 'DENY', 'Cross-Origin-Opener-Policy': 'same-origin' } as const;

/** The best encoding the client takes that the file has; quality values of 0 refuse one. */
export function chooseEncoding(acceptEncoding: string | undefined, available: readonly Encoding[]): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(name, q ? Number(q.slice(2)) || 0 : 1);
  }
  const takes = (encoding: Encoding) => (accepted.get(encoding) ?? accepted.get('*') ?? 0) > 0;
  return available.find(takes);
}

/** Content types answered as text when not compressed; anything else travels base64-encoded, as API Gateway needs for bytes. */
const TEXT = /^(text\/|application\/(javascript|json)|image\/svg\+xml)/;

const etagMatches = (ifNoneMatch: string | undefined, etag: string): boolean =>
  ifNoneMatch?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*') ?? false;

/** The answer for `path` (a page or an asset), or 404 for a path the build does not hold. */
export function serveStatic(site: StaticSite, path: string, event: Pick<HttpEvent, 'headers'>): HttpResult {
  const entry = site.find(path);
  if (!entry) throw new NotFoundError(`Nothing is served at ${path}.`);
  const headers: Record<string, string> = {
    ...COMMON_HEADERS,
    ...(entry.csp ? { ...PAGE_HEADERS, 'Content-Security-Policy': entry.csp } : {}),
    'Content-Type': entry.contentType,
    'Cache-Control': entry.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    ETag: entry.etag,
    Vary: 'Accept-Encoding',
  };
  if (etagMatches(header(event.headers, 'if-none-match'), entry.etag)) return { statusCode: 304, headers, body: '' };
  const encoding = chooseEncoding(header(event.headers, 'accept-encoding'), entry.encodings);
  if (!encoding) {
    const content = site.read(entry.file);
    return TEXT.test(entry.contentType)
      ? { statusCode: 200, headers, body: content.toString('utf8') }
      : { statusCode: 200, headers, body: content.toString('base64'), isBase64Encoded: true };
  }
  return {
    statusCode: 200,
    headers: { ...headers, 'Content-Encoding': encoding },
    body: site.read(entry.file + ENCODING_SUFFIX[encoding]).toString('base64'),
    isBase64Encoded: true,
  };
}
