import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, test } from 'vitest';
import { generatedFiles } from '#app/generate.js';
import { buildOpenApiDocument } from '#app/openapi/document.js';
import { ENDPOINTS } from '#app/registry.generated.js';
import { ROUTES, type RouteDefinition } from '#app/routes.js';
import { REPO_ROOT } from '#local/handlers.js';
import { defineTag, type EndpointContract } from '#platform/http/contract.js';
import { allowedMethods, matchRoute } from '#platform/http/routing.js';
import type { ApiContext } from '#platform/http/types.js';
import { handler as serveOpenApi } from '../../functions/openapi.js';

describe('route table', () => {
  test('every entry exists, ids are unique, and exactly one $default', () => {
    for (const route of ROUTES) assert.ok(existsSync(resolve(REPO_ROOT, route.entry)), route.entry);
    assert.equal(new Set(ROUTES.map((r) => r.id)).size, ROUTES.length);
    assert.equal(new Set(ROUTES.map((r) => `${r.method} ${r.path}`)).size, ROUTES.length);
    assert.equal(ROUTES.filter((r) => r.path === '$default').length, 1);
  });

  test('matching prefers literal paths, decodes parameters, falls back to $default', () => {
    const routes: RouteDefinition[] = [
      { id: 'A', method: 'GET', path: '/v1/things/{id}', entry: 'a.ts', table: 'none' },
      { id: 'B', method: 'GET', path: '/v1/things/latest', entry: 'b.ts', table: 'none' },
      { id: 'D', method: 'ANY', path: '$default', entry: 'd.ts', table: 'none' },
    ];
    assert.equal(matchRoute('GET', '/v1/things/latest', routes)?.route.id, 'B');
    const param = matchRoute('GET', '/v1/things/a%20b', routes);
    assert.deepEqual([param?.route.id, param?.params, param?.routeKey], ['A', { id: 'a b' }, 'GET /v1/things/{id}']);
    assert.equal(matchRoute('POST', '/v1/things/x', routes)?.routeKey, '$default');
    assert.equal(matchRoute('GET', '/v1/things/x/y', routes)?.route.id, 'D');
    assert.deepEqual(allowedMethods('/v1/things/x', routes), ['GET']);
    assert.deepEqual(allowedMethods('/nope', routes), []);
  });
});

describe('OpenAPI document', async () => {
  const document = await buildOpenApiDocument(ENDPOINTS, 'https://svc.example');

  test('is OpenAPI 3.1 at version 1.0.0 with the server url', () => {
    assert.equal(document.openapi, '3.1.0');
    assert.equal(document.info.version, '1.0.0');
    assert.deepEqual(document.servers, [{ url: 'https://svc.example' }]);
  });

  test('documents every route of the route table', () => {
    for (const route of ROUTES.filter((r) => r.path !== '$default')) {
      const operation = document.paths?.[route.path]?.[route.method.toLowerCase() as 'get'];
      assert.ok(operation, `${route.method} ${route.path} is missing from the OpenAPI document`);
    }
  });

  test('request schemas come from the validating zod schemas (strict, with bounds)', () => {
    const schemas = document.components?.schemas as Record<string, { additionalProperties?: boolean; required?: string[] }>;
    assert.equal(schemas.LoginRequest?.additionalProperties, false);
    assert.deepEqual(schemas.LoginRequest?.required, ['email', 'password']);
    assert.ok(schemas.Problem);
    const list = document.paths?.['/v1/api-tokens']?.get;
    const limit = list?.parameters?.find((p) => 'name' in p && p.name === 'limit') as { schema: { minimum: number; maximum: number } };
    assert.deepEqual([limit.schema.minimum, limit.schema.maximum], [1, 100]);
  });

  test('lists every tag its operations use, each with its feature’s description, the service’s own first', () => {
    const used = new Set(ENDPOINTS.flatMap((e) => (e.tags ?? []).map((t) => t.name)));
    assert.deepEqual(new Set(document.tags?.map((t) => t.name)), used);
    assert.ok(document.tags?.every((t) => (t.description ?? '').length > 0));
    assert.equal(document.tags?.[0]?.name, 'Service');
  });

  test('refuses a tag stated twice (two descriptions of one name)', async () => {
    const [first] = ENDPOINTS.filter((e) => e.tags?.length);
    const impostor = { ...first!, id: 'Impostor', path: '/impostor', tags: [defineTag(first!.tags![0]!.name, 'Another description.')] };
    await assert.rejects(buildOpenApiDocument([first!, impostor as EndpointContract]), /stated twice/);
  });
});

describe('generated files', () => {
  test('the committed registry, served routes, OpenAPI document and README price table are what the tree generates now', async () => {
    const files = await generatedFiles();
    assert.deepEqual(Object.keys(files).sort(), [
      'README.md',
      'lib/app/openapi/generated.ts',
      'lib/app/registry.generated.ts',
      'lib/app/served-routes.generated.ts',
    ]);
    for (const [path, source] of Object.entries(files)) {
      const committed = existsSync(resolve(REPO_ROOT, path)) ? readFileSync(resolve(REPO_ROOT, path), 'utf8') : undefined;
      assert.ok(committed === source, `${path} is out of date with the contracts, schemas or feature folders: run npm run openapi`);
    }
  });
});

describe('served OpenAPI document', () => {
  test('GET /openapi.json answers the document with the base URL, JSON-escaped, as its server', async () => {
    // Characters that need JSON escaping, and `$&`, which String#replace would expand.
    const baseUrl = 'https://svc.example/a"b\\c$&';
    const previous = process.env.BASE_URL;
    process.env.BASE_URL = baseUrl;
    try {
      const event = { rawPath: '/openapi.json', headers: {}, requestContext: { http: { method: 'GET', path: '/openapi.json' } } };
      const context = { getRemainingTimeInMillis: () => 1000 } as unknown as ApiContext;
      const result = await serveOpenApi(event as unknown as APIGatewayProxyEventV2, context);
      assert.equal(result.statusCode, 200);
      assert.equal(result.headers['Content-Type'], 'application/json');
      assert.deepEqual(JSON.parse(result.body), await buildOpenApiDocument(ENDPOINTS, baseUrl));
    } finally {
      if (previous === undefined) delete process.env.BASE_URL;
      else process.env.BASE_URL = previous;
    }
  });
});
