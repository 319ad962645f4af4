/**
 * The built pages and assets (web/build.ts writes them, lib/pages serves
 * them): one manifest of every path the pages feature answers, so a handler
 * never lists a directory or guesses a content type.
 */

/** Precompressed variants a file may have beside it (`<file>.br`, `<file>.gz`), best first. */
export const ENCODINGS = ['br', 'gzip'] as const;
export type Encoding = (typeof ENCODINGS)[number];

export const ENCODING_SUFFIX: Readonly<Record<Encoding, string>> = { br: '.br', gzip: '.gz' };

export interface WebFile {
  /** The file, relative to the build directory. */
  file: string;
  contentType: string;
  /** A strong validator of the uncompressed content. */
  etag: string;
  /** The precompressed variants written beside `file`. */
  encodings: readonly Encoding[];
  /** Content-hashed names never change content: cached for a year. Pages are revalidated. */
  immutable: boolean;
  /** The Content-Security-Policy of a page; assets carry none. */
  csp?: string;
}

export interface WebManifest {
  /** By URL path: `/`, `/docs`, `/assets/console-HASH.js`, ... */
  files: Readonly<Record<string, WebFile>>;
}

export const MANIFEST_FILE = 'manifest.json';

/** Where the asset route serves from: its path parameter names a file under it. */
export const ASSETS_PREFIX = '/assets/';
