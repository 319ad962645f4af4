import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { Context } from 'aws-lambda';
import { inject, test } from 'vitest';
import type { WebManifest } from '#pages/model.js';
import { CONSOLE_CSP } from '../../web/build.js';
import { httpEvent } from '../helpers/http-event.js';
import { readStacks, resourcesOfType } from './assembly.js';

// The real app as `cdk synth` builds it (test/infra/global-setup.ts).
const dir = inject('assemblyDir');
const stacks = readStacks(dir);

/** The asset folder of the function that serves `method path`. */
function assetOf(description: string): string {
  for (const stack of stacks) {
    for (const [, fn] of resourcesOfType(stack, 'AWS::Lambda::Function')) {
      if (fn.Properties?.Description === description) return join(dir, fn.Metadata!['aws:asset:path'] as string);
    }
  }
  assert.fail(`no function described ${description}`);
}

const PAGE_FUNCTIONS = ['GET /', 'GET /docs', 'GET /assets/{file}'];

test('each page function ships the compressed build of the console and the reference page beside its handler', () => {
  for (const description of PAGE_FUNCTIONS) {
    const web = join(assetOf(description), 'web');
    const manifest = JSON.parse(readFileSync(join(web, 'manifest.json'), 'utf8')) as WebManifest;
    assert.ok(manifest.files['/'] && manifest.files['/docs'], `${description}: both pages`);
    assert.ok(
      Object.keys(manifest.files).some((path) => /^\/assets\/console-\w+\.js$/.test(path)),
      `${description}: the console script`,
    );
    assert.ok(
      Object.keys(manifest.files).some((path) => /^\/assets\/scalar-\w+\.js$/.test(path)),
      `${description}: the reference renderer`,
    );
    for (const [path, file] of Object.entries(manifest.files)) {
      assert.deepEqual(file.encodings, ['br', 'gzip'], `${description} ${path}: precompressed`);
      for (const suffix of ['', '.br', '.gz']) assert.ok(existsSync(join(web, file.file + suffix)), `${description} ${path}: ${file.file}${suffix}`);
    }
  }
  // Functions that serve no page carry none.
  assert.equal(existsSync(join(assetOf('GET /healthz'), 'web')), false);
});

test('the bundled console function answers its page from its own folder, with the Content-Security-Policy', async () => {
  const asset = assetOf('GET /');
  const { handler } = (await import(pathToFileURL(join(asset, 'index.mjs')).href)) as {
    handler: (event: unknown, context: Context) => Promise<{ statusCode: number; headers: Record<string, string>; body: string; isBase64Encoded?: boolean }>;
  };
  const prior = process.env.WEB_ASSETS_DIR;
  delete process.env.WEB_ASSETS_DIR;
  try {
    const result = await handler(
      httpEvent({ routeKey: 'GET /', rawPath: '/', headers: { 'accept-encoding': 'gzip' }, requestContext: { http: { method: 'GET', path: '/' } } as never }),
      { awsRequestId: 'infra-test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context,
    );
    assert.equal(result.statusCode, 200);
    assert.equal(result.headers['Content-Security-Policy'], CONSOLE_CSP);
    assert.equal(result.headers['Content-Encoding'], 'gzip');
    assert.match(gunzipSync(Buffer.from(result.body, 'base64')).toString(), /<script type="module" src="\/assets\/console-\w+\.js"><\/script>/);
  } finally {
    if (prior !== undefined) process.env.WEB_ASSETS_DIR = prior;
  }
});

test('CloudFront caches the content-hashed assets at the edge, without cookies or credentials in the key', () => {
  const [, distribution] = resourcesOfType(stacks[0]!, 'AWS::CloudFront::Distribution')[0]!;
  const behaviors = distribution.Properties!.DistributionConfig.CacheBehaviors as {
    PathPattern: string;
    CachePolicyId: string;
    Compress: boolean;
    AllowedMethods: string[];
  }[];
  const assets = behaviors.find((b) => b.PathPattern === '/assets/*');
  assert.ok(assets, 'a behaviour for /assets/*');
  // The managed CachingOptimized policy.
  assert.equal(assets.CachePolicyId, '658327ea-f89d-4fab-a63d-7e88639e58f6');
  assert.deepEqual(assets.AllowedMethods.sort(), ['GET', 'HEAD']);
});
