import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { WebManifest } from '#pages/model.js';
import { chooseEncoding, serveStatic, staticSite } from '#pages/static-site.js';
import { NotFoundError } from '#platform/errors.js';
import { makeHandler as assetHandler } from '../../functions/pages/web-asset.js';
import { httpEvent } from '../helpers/http-event.js';

const SCRIPT = 'console.log("hello");\n'.repeat(50);

/** A build directory as web/build.ts writes it: a page, a script with its gzip variant, the manifest. */
function siteDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pages-'));
  writeFileSync(join(dir, 'console.html'), '<!doctype html><title>x</title>');
  writeFileSync(join(dir, 'app-1.js'), SCRIPT);
  writeFileSync(join(dir, 'app-1.js.gz'), gzipSync(SCRIPT));
  const manifest: WebManifest = {
    files: {
      '/': { file: 'console.html', contentType: 'text/html; charset=utf-8', etag: '"page"', encodings: [], immutable: false, csp: "script-src 'self'" },
      '/assets/app-1.js': { file: 'app-1.js', contentType: 'text/javascript; charset=utf-8', etag: '"app"', encodings: ['gzip'], immutable: true },
    },
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));
  return dir;
}

describe('chooseEncoding', () => {
  it.each([
    ['gzip, deflate, br', ['br', 'gzip'], 'br'],
    ['gzip', ['br', 'gzip'], 'gzip'],
    ['br;q=0, gzip;q=0.5', ['br', 'gzip'], 'gzip'],
    ['*', ['br', 'gzip'], 'br'],
    ['identity', ['br', 'gzip'], undefined],
    [undefined, ['br', 'gzip'], undefined],
    ['br, gzip', [], undefined],
  ] as const)('Accept-Encoding %s with %j → %s', (accept, available, expected) => {
    expect(chooseEncoding(accept, available)).toBe(expected);
  });
});

describe('serveStatic', () => {
  it('answers a page with its Content-Security-Policy, revalidated on every load', () => {
    // Prepare
    const site = staticSite(siteDir());
    // Act
    const result = serveStatic(site, '/', { headers: {} });
    // Assert
    expect(result.statusCode).toBe(200);
    expect(result.body).toContain('<title>x</title>');
    expect(result.headers).toMatchObject({
      'Content-Security-Policy': "script-src 'self'",
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-cache',
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      ETag: '"page"',
    });
  });

  it('answers a hashed asset compressed when the client takes it, cached for a year, without a CSP', () => {
    const site = staticSite(siteDir());
    const result = serveStatic(site, '/assets/app-1.js', { headers: { 'accept-encoding': 'gzip, deflate' } });
    expect(result.statusCode).toBe(200);
    expect(result.isBase64Encoded).toBe(true);
    expect(gunzipSync(Buffer.from(result.body, 'base64')).toString()).toBe(SCRIPT);
    expect(result.headers).toMatchObject({ 'Content-Encoding': 'gzip', 'Cache-Control': 'public, max-age=31536000, immutable', Vary: 'Accept-Encoding' });
    expect(result.headers['Content-Security-Policy']).toBeUndefined();
  });

  it('answers 304 with no body when the client holds the same version', () => {
    const site = staticSite(siteDir());
    const result = serveStatic(site, '/assets/app-1.js', { headers: { 'If-None-Match': 'W/"other", "app"' } });
    expect(result).toMatchObject({ statusCode: 304, body: '' });
  });

  it('refuses a path the build does not hold as not found', () => {
    const site = staticSite(siteDir());
    expect(() => serveStatic(site, '/assets/nope.js', { headers: {} })).toThrow(NotFoundError);
  });

  it('says the pages are not built when the directory has no manifest', () => {
    const site = staticSite(mkdtempSync(join(tmpdir(), 'empty-')));
    expect(() => site.find('/')).toThrow(/not built/);
  });
});

describe('GET /assets/{file}', () => {
  const invoke = (file: string) =>
    assetHandler(staticSite(siteDir()))(
      httpEvent({
        routeKey: 'GET /assets/{file}',
        rawPath: `/assets/${file}`,
        pathParameters: { file },
        requestContext: { http: { method: 'GET', path: `/assets/${file}` } } as never,
      }),
      { awsRequestId: 'r1' } as Context,
    );

  it('serves the file its path names', async () => {
    const result = await invoke('app-1.js');
    expect(result.statusCode).toBe(200);
    expect(result.body).toBe(SCRIPT);
  });

  it('answers a problem document 404 for an unknown file', async () => {
    const result = await invoke('missing.js');
    expect(result.statusCode).toBe(404);
    expect(result.headers['Content-Type']).toBe('application/problem+json');
    expect(JSON.parse(result.body)).toMatchObject({ code: 'not_found' });
  });
});
