import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, test } from 'vitest';
import { BUNDLE, ESM_REQUIRE_BANNER, EXTERNAL_MODULES } from '../../infra/bundling.js';
import { bundleFixture } from '../helpers/bundle-runtime.js';

const fixture = bundleFixture({});

describe('BundleRuntime: a handler of this repository, bundled as cdk deploy bundles it', () => {
  test('functions/health.ts answers 200, reaching the table through the endpoint and credentials of its environment', async () => {
    await build({
      entryPoints: [fileURLToPath(new URL('../../functions/health.ts', import.meta.url))],
      outfile: join(fixture.root, 'health', 'index.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: BUNDLE.target,
      minify: BUNDLE.minify,
      mainFields: [...BUNDLE.mainFields],
      banner: { js: ESM_REQUIRE_BANNER },
      external: EXTERNAL_MODULES,
      sourcemap: true,
      logLevel: 'silent',
    });
    const calls: Array<{ target: unknown; tableName: unknown; authorization: unknown }> = [];
    const dynamodb = await fixture.serve(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      calls.push({ target: req.headers['x-amz-target'], tableName: JSON.parse(body).TableName, authorization: req.headers.authorization });
      res.writeHead(200, { 'Content-Type': 'application/x-amz-json-1.0' }).end(JSON.stringify({ Table: { TableName: 'local-table', TableStatus: 'ACTIVE' } }));
    });
    const environment = {
      TABLE_NAME: 'local-table',
      DYNAMODB_ENDPOINT: dynamodb,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIDLOCAL',
      AWS_SECRET_ACCESS_KEY: 'secret',
    };
    const fn = fixture.runtime('health', { functionName: 'Health', environment: { ...environment, NODE_OPTIONS: '--enable-source-maps' } });
    const event = {
      version: '2.0',
      routeKey: 'GET /healthz',
      rawPath: '/healthz',
      rawQueryString: '',
      headers: {},
      requestContext: { http: { method: 'GET', path: '/healthz' }, requestId: 'request-1' },
      isBase64Encoded: false,
    };

    const answer = (await fn.invoke(event)) as { statusCode: number; body: string };

    assert.equal(answer.statusCode, 200, answer.body);
    assert.deepEqual(JSON.parse(answer.body), { status: 'ok' });
    assert.equal(calls.length, 1);
    assert.equal(calls[0]!.target, 'DynamoDB_20120810.DescribeTable');
    assert.equal(calls[0]!.tableName, 'local-table');
    assert.match(String(calls[0]!.authorization), /Credential=AKIDLOCAL\/\d{8}\/eu-west-1\/dynamodb\//);
  });
});
