import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cruise, type IModule } from 'dependency-cruiser';
import { describe, expectTypeOf, test } from 'vitest';
import { ENDPOINTS } from '#app/registry.generated.js';
import { ROUTES, routeOf } from '#app/routes.js';
import { SERVED_ROUTES } from '#app/served-routes.generated.js';
import { REPO_ROOT } from '#local/handlers.js';
import { type BodyOf, defineEndpoint, type QueryOf } from '#platform/http/contract.js';
import type { WorkflowsCreate } from '#workflows/contracts/workflows-create.js';
import type { WorkflowsGet } from '#workflows/contracts/workflows-get.js';
import type { WorkflowsList } from '#workflows/contracts/workflows-list.js';

const paramNames = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();

describe('endpoint contracts', () => {
  test('a contract becomes a route with the stack settings it states, and none it does not', () => {
    const contract = defineEndpoint({
      id: 'ThingsStream',
      method: 'GET',
      path: '/v2/things/{id}/events',
      handler: 'functions/things/events.ts',
      auth: 'bearer',
      streaming: true,
      table: 'read',
      sends: true,
      timeoutSeconds: 900,
      memoryMb: 512,
      undocumented: 'a test',
    });
    assert.deepEqual(routeOf(contract), {
      id: 'ThingsStream',
      method: 'GET',
      path: '/v2/things/{id}/events',
      entry: 'functions/things/events.ts',
      table: 'read',
      auth: 'bearer',
      streaming: true,
      sends: true,
      timeoutSeconds: 900,
      memoryMb: 512,
    });
    const plain = defineEndpoint({
      id: 'Things',
      method: 'POST',
      path: '/v2/things',
      handler: 'functions/things/create.ts',
      auth: 'none',
      table: 'none',
      undocumented: 'a test',
    });
    assert.deepEqual(routeOf(plain), { id: 'Things', method: 'POST', path: '/v2/things', entry: 'functions/things/create.ts', table: 'none', auth: 'none' });
  });

  test('the route table and the served routes are every feature’s contracts', () => {
    assert.deepEqual(ROUTES, ENDPOINTS.map(routeOf));
    assert.deepEqual(
      SERVED_ROUTES.map(({ id, method, path }) => ({ id, method, path })),
      ENDPOINTS.map(({ id, method, path }) => ({ id, method, path })),
    );
    const byId = new Map(ROUTES.map((r) => [r.id, r]));
    assert.deepEqual(byId.get('WorkflowRequestsListen'), {
      id: 'WorkflowRequestsListen',
      method: 'GET',
      path: '/v1/workflow-requests/{id}/listen',
      entry: 'functions/workflow-requests/listen.ts',
      table: 'read',
      auth: 'bearer',
      streaming: true,
      timeoutSeconds: 900,
    });
    assert.equal(byId.get('WorkflowRequestsRun')?.sends, true);
    assert.equal(byId.get('AuthLogin')?.memoryMb, 256);
  });

  test('each is exported under its id from a file named after it, documents exactly its path’s parameters, and its handler builds on it', async () => {
    const kebab = (id: string) => id.replace(/(?<=[a-z])(?=[A-Z])/g, '-').toLowerCase();
    const folders = readdirSync(resolve(REPO_ROOT, 'lib')).filter((folder) => existsSync(resolve(REPO_ROOT, 'lib', folder, 'contracts')));
    for (const contract of ENDPOINTS) {
      const files = folders.map((folder) => resolve(REPO_ROOT, 'lib', folder, 'contracts', `${kebab(contract.id)}.ts`)).filter((file) => existsSync(file));
      assert.equal(files.length, 1, `${contract.id} is in lib/*/contracts/${kebab(contract.id)}.ts`);
      assert.equal(((await import(pathToFileURL(files[0]!).href)) as Record<string, unknown>)[contract.id], contract);
      assert.deepEqual(Object.keys(contract.params ?? {}).sort(), paramNames(contract.path), `${contract.id}: params`);
      const source = readFileSync(resolve(REPO_ROOT, contract.handler), 'utf8');
      assert.match(source, new RegExp(`(streamingHttpHandler|httpHandler)\\(${contract.id}, `), `${contract.handler} serves ${contract.id}`);
    }
  });

  test('only API Gateway’s $default goes undocumented', () => {
    assert.deepEqual(
      ENDPOINTS.filter((c) => c.undocumented !== undefined).map((c) => c.path),
      ['$default'],
    );
  });

  test('a handler’s body and query are its contract’s schemas’ output', () => {
    expectTypeOf<BodyOf<typeof WorkflowsCreate>>().toEqualTypeOf<{ name: string; description?: string | null | undefined }>();
    expectTypeOf<QueryOf<typeof WorkflowsList>>().toEqualTypeOf<{ search?: string | undefined; limit: number; cursor?: string | undefined }>();
    expectTypeOf<BodyOf<typeof WorkflowsGet>>().toEqualTypeOf<undefined>();
  });
});

describe('a handler loads its contract, not its documentation', async () => {
  const result = await cruise(['functions'], { tsPreCompilationDeps: true, doNotFollow: { path: 'node_modules' } }, undefined, {
    tsConfig: { fileName: 'tsconfig.json' },
  });
  const modules = new Map((result.output as { modules: IModule[] }).modules.map((m) => [m.source, m]));
  const contractModules = [...modules.values()].filter((m) => /^lib\/[^/]+\/contracts\//.test(m.source));
  /** What contracts import with `import()`: their responses. */
  const lazy = new Set(contractModules.flatMap((m) => m.dependencies.filter((d) => d.dynamic).map((d) => d.resolved)));
  /** What a module loads when it is imported: its static, non-type imports, transitively. */
  const loadedBy = (entry: string): Set<string> => {
    const seen = new Set<string>();
    const visit = (source: string) => {
      if (seen.has(source)) return;
      seen.add(source);
      for (const d of modules.get(source)?.dependencies ?? []) {
        if (!d.dynamic && !d.dependencyTypes.includes('type-only')) visit(d.resolved);
      }
    };
    visit(entry);
    return seen;
  };
  // The served document is generated text; everything else in an openapi/ folder is documentation.
  const SERVED = ['lib/app/openapi/served.ts', 'lib/app/openapi/generated.ts'];
  const isDocumentation = (path: string) =>
    path.includes('@asteasolutions/zod-to-openapi') || lazy.has(path) || (/^lib\/.+\/openapi\//.test(path) && !SERVED.includes(path));

  test('every documented contract’s responses are loaded with import()', () => {
    for (const [source, module] of modules) {
      if (!/^lib\/[^/]+\/contracts\/(?!index\.ts|params\.ts|tags\.ts)/.test(source) || source.endsWith('not-found.ts')) continue;
      assert.ok(
        module.dependencies.some((d) => d.dynamic && /\/openapi\/[^/]+-responses\.ts$/.test(d.resolved)),
        `${source} imports its responses lazily`,
      );
    }
    assert.ok(lazy.size >= 8, `the contracts' lazy imports were read (${lazy.size})`);
  });

  test('no handler loads zod-to-openapi, a responses module or a contract’s lazy import at init', () => {
    for (const route of ROUTES) {
      const loaded = loadedBy(route.entry);
      assert.ok(
        [...loaded].some((path) => /^lib\/[^/]+\/contracts\//.test(path)),
        `${route.entry} loads its contract`,
      );
      const documentation = [...loaded].filter(isDocumentation);
      assert.deepEqual(documentation, [], `${route.entry} loads documentation at init`);
    }
  });

  test('a handler that validates no body or query loads no zod at init (path parameters and headers are plain data)', () => {
    const validating = ENDPOINTS.filter((c) => c.body || c.query);
    assert.ok(validating.length > 0 && validating.length < ENDPOINTS.length);
    for (const contract of ENDPOINTS) {
      const zod = [...loadedBy(contract.handler)].some((path) => path.startsWith('node_modules/zod/'));
      assert.equal(zod, validating.includes(contract), `${contract.handler} loads zod at init`);
    }
  });

  test('a handler that signs or checks cursors states serviceKey, the only way the stack grants it the secret; only a handler that reads the key states it', () => {
    const paging = ENDPOINTS.filter((c) => loadedBy(c.handler).has('lib/platform/http/cursor.ts'));
    assert.ok(paging.length >= 13, `the handlers that page were found (${paging.length})`);
    for (const contract of paging) assert.equal(contract.serviceKey, true, `${contract.id} (${contract.handler}) pages with cursors`);
    for (const contract of ENDPOINTS.filter((c) => c.serviceKey)) {
      assert.ok(
        loadedBy(contract.handler).has('lib/platform/secrets/service-key.ts'),
        `${contract.id} (${contract.handler}) states serviceKey and cannot read it`,
      );
    }
  });
});
