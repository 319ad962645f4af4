import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, test } from 'vitest';
import { ROUTES } from '#app/routes.js';
import { REPO_ROOT } from '#local/handlers.js';
import { matchRoute } from '#platform/http/routing.js';
import type { ApiContext } from '#platform/http/types.js';
import { makeHandler as makeLogin } from '../../functions/auth/login.js';
import { handler as notFound } from '../../functions/not-found.js';

const sample = (name: string) => JSON.parse(readFileSync(resolve(REPO_ROOT, 'events', name), 'utf8')) as APIGatewayProxyEventV2;
const context = () => ({ getRemainingTimeInMillis: () => 1000 }) as unknown as ApiContext;

describe('sample events (events/)', () => {
  test('HTTP API samples name routes of the route table', () => {
    for (const name of ['http-api-list-tokens.json', 'http-api-login.json', 'http-api-unknown-path.json']) {
      const event = sample(name);
      assert.equal(matchRoute(event.requestContext.http.method, event.rawPath, ROUTES)?.routeKey, event.routeKey, name);
    }
  });

  test('the legacy chat-completions sample gets the 404 problem document', async () => {
    const result = await notFound(sample('http-api-unknown-path.json'), context());
    assert.equal(result.statusCode, 404);
    assert.equal(JSON.parse(result.body).trace_id, 'sample-legacy-path');
  });

  test('the login sample with wrong credentials gets 401', async () => {
    const handler = makeLogin({ accounts: { findByEmail: async () => undefined } as never, sessions: {} as never });
    const result = await handler(sample('http-api-login.json'), context());
    assert.equal(result.statusCode, 401);
  });
});
