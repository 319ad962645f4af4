import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, test } from 'vitest';
import type * as z from 'zod';
import { CreateEvaluationBody } from '#evaluations/schemas.js';
import { accountEventPut } from '#events/account-events.js';
import type { WorkflowRequest } from '#execution/model.js';
import { RunWorkflowBody } from '#execution/schemas/workflow-requests.js';
import { requestView } from '#execution/views.js';
import { HookEventBody } from '#hooks/schemas/hooks.js';
import { JSON_BODY_MAX_DEPTH, JSON_MAX_DEPTH } from '#platform/config/limits.js';
import { DomainError } from '#platform/errors.js';
import { nestingPast, parseBody } from '#platform/http/parse.js';
import { STATUS_OF } from '#platform/http/problem.js';
import { jsonDepth } from '#platform/json-depth.js';
import { runEndedEvent } from '#runs/run-ended.js';
import { CreateRunBody } from '#runs/schemas.js';
import { CreateVersionBody } from '#workflows/schemas/workflow-versions.js';
import { runFixture } from '../helpers/run-fixture.js';

/** An object `levels` deep: `{"a": … {"leaf": true} …}`. */
const nested = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
};

/** The JSON text of a value `levels` deep, built as text (JSON.stringify itself overflows a few thousand levels down). */
const nestedText = (levels: number): string => `${'{"a":'.repeat(levels - 1)}{"leaf":true}${'}'.repeat(levels - 1)}`;

const eventOf = (body: string) => ({ body, isBase64Encoded: false }) as unknown as APIGatewayProxyEventV2;

function refusal(schema: z.ZodType, body: string): DomainError {
  try {
    parseBody(eventOf(body), schema);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('the body was accepted');
}

/** DynamoDB keeps at most 31 levels of maps and lists under an attribute (32 with the attribute). */
const DYNAMODB_MAX_DEPTH = 31;
const deepestAttribute = (item: Record<string, unknown>) => Math.max(...Object.values(item).map((value) => jsonDepth(value)));

describe('jsonDepth', () => {
  test('counts objects and arrays inside one another; scalars are 0', () => {
    assert.deepEqual(
      [jsonDepth('x'), jsonDepth(null), jsonDepth({}), jsonDepth([]), jsonDepth({ a: [1, { b: [] }] }), jsonDepth([[], [[[]]]])],
      [0, 0, 1, 1, 4, 4],
    );
    assert.equal(jsonDepth(nested(JSON_MAX_DEPTH)), JSON_MAX_DEPTH);
  });

  test('measures a value 100 000 levels deep without recursion, and stops once past the bound it is given', () => {
    const deep = JSON.parse(nestedText(100_000));
    assert.equal(jsonDepth(deep), 100_000);
    assert.equal(jsonDepth(deep, 20), 21);
  });
});

describe('nestingPast: the body text read before it is parsed', () => {
  test('counts brackets outside strings only, escaped quotes included, and names the top-level member it happens under', () => {
    assert.equal(nestingPast('{"a":"[[[[[[","b":"\\"[[[[[["}', 2), undefined);
    assert.deepEqual(nestingPast('{"name":"x","in\\"put/~":[[{"k":1}]]}', 3), { member: 'in"put/~' });
    assert.equal(nestingPast(nestedText(5), 5), undefined);
    assert.deepEqual(nestingPast(nestedText(6), 5), { member: 'a' });
    assert.deepEqual(nestingPast('[[[', 2), { member: undefined });
  });
});

describe('every stored JSON value is bounded at the edge', () => {
  const L = JSON_MAX_DEPTH;
  const cases: Array<{ route: string; schema: z.ZodType; body: (value: Record<string, unknown>) => unknown; pointer: string }> = [
    { route: 'POST /v2/runs input', schema: CreateRunBody, body: (input) => ({ harness_id: 'h', machine_id: 'm', input }), pointer: '/input' },
    {
      route: 'POST /v2/runs metadata',
      schema: CreateRunBody,
      body: (metadata) => ({ harness_id: 'h', machine_id: 'm', input: 'x', metadata }),
      pointer: '/metadata',
    },
    {
      route: 'POST /v1/workflow-requests/run payload',
      schema: RunWorkflowBody,
      body: (payload) => ({ workflow_version_id: randomUUID(), entry_node_ids: [randomUUID()], payload }),
      pointer: '/payload',
    },
    {
      route: 'POST /v1/workflow-requests/run metadata',
      schema: RunWorkflowBody,
      body: (metadata) => ({ workflow_version_id: randomUUID(), entry_node_ids: [randomUUID()], metadata }),
      pointer: '/metadata',
    },
    {
      route: 'POST /v2/evaluations case input',
      schema: CreateEvaluationBody,
      body: (input) => ({
        name: 'e',
        harness_id: 'h',
        machine_id: 'm',
        attempts_per_case: 1,
        cases: [
          { id: 'flat', input: 'x' },
          { id: 'deep', input },
        ],
      }),
      pointer: '/cases/1/input',
    },
    { route: 'POST /v1/hooks/{id}/events body', schema: HookEventBody, body: (event) => event, pointer: '' },
    {
      route: 'POST /v1/workflows/{id}/versions node config',
      schema: CreateVersionBody,
      body: (config) => ({
        definition: {
          nodes: [
            { name: 'a', type: 'transform', config: { expression: '$' } },
            { name: 'b', type: 'http', config },
          ],
        },
      }),
      pointer: '/definition/nodes/1/config',
    },
  ];

  for (const { route, schema, body, pointer } of cases) {
    test(`${route}: ${L} levels pass; ${L + 1} is 422 validation_failed naming ${pointer || 'the body'}, code too_deep`, () => {
      assert.ok(parseBody(eventOf(JSON.stringify(body(nested(L)))), schema).value);
      const error = refusal(schema, JSON.stringify(body(nested(L + 1))));
      assert.equal(STATUS_OF[error.kind], 422);
      assert.equal(error.code, 'validation_failed');
      assert.deepEqual(error.options.errors, [
        { name: pointer, location: 'body', reason: `must nest objects and arrays at most ${L} levels deep`, code: 'too_deep' },
      ]);
    });
  }

  test('a body thousands of levels deep is 422 too_deep naming its top-level field, refused from its text before anything recurses over it', () => {
    const started = performance.now();
    const run = refusal(CreateRunBody, `{"harness_id":"h","machine_id":"m","input":${nestedText(5000)}}`);
    const hook = refusal(HookEventBody, nestedText(200_000));
    const evaluation = refusal(CreateEvaluationBody, `{"name":"e","cases":[{"id":"c","input":${nestedText(3000)}}]}`);
    assert.ok(performance.now() - started < 2000, 'refused in one pass over the text');
    for (const [error, name] of [
      [run, '/input'],
      [hook, '/a'],
      [evaluation, '/cases'],
    ] as const) {
      assert.equal(STATUS_OF[error.kind], 422);
      assert.equal(error.code, 'validation_failed');
      assert.deepEqual(error.options.errors, [
        { name, location: 'body', reason: `nests objects and arrays more than ${JSON_BODY_MAX_DEPTH} levels deep`, code: 'too_deep' },
      ]);
    }
    const array = refusal(CreateRunBody, `[${nestedText(5000)}]`);
    assert.deepEqual([STATUS_OF[array.kind], array.code], [400, 'invalid_body'], 'not an object, whatever its depth');
  });

  test('a body within the body bound but with a field past its own bound names that field, not its top-level one', () => {
    const error = refusal(
      CreateEvaluationBody,
      JSON.stringify({ name: 'e', harness_id: 'h', machine_id: 'm', attempts_per_case: 1, cases: [{ id: 'c', input: nested(40) }] }),
    );
    assert.equal(error.options.errors?.[0]?.name, '/cases/0/input');
  });

  test('the deepest wrappers the service puts around a bounded value stay within what DynamoDB stores', () => {
    const run = runFixture({ id: 'run_000000001AAAAAAAAAAAAAAAA', account_id: 'acc', status: 'completed', input: nested(L), metadata: nested(L) });
    const runEvent = accountEventPut({ tableName: 't' }, 'acc', runEndedEvent(run), new Date()).Put!.Item!;
    const request = { id: 'r', status: 'completed', payload: nested(L), metadata: nested(L) } as unknown as WorkflowRequest;
    const requestEvent = accountEventPut({ tableName: 't' }, 'acc', { id: 'e', type: 'workflow_request.completed', data: requestView(request) }, new Date())
      .Put!.Item!;
    const version = { definition: { nodes: [{ id: 'n', name: 'n', type: 'http', config: nested(L) }], edges: [] } };
    // A node's input holds its parents' outputs by id; a `workflow` node's output holds its child's leaf outputs by id.
    const hops = { input_data: { parent: { workflow_request_id: 'c', outputs: { leaf: nested(L) } } } };
    for (const [what, item] of Object.entries({ runEvent, requestEvent, version, hops })) {
      assert.ok(deepestAttribute(item) <= DYNAMODB_MAX_DEPTH, `${what}: ${deepestAttribute(item)} levels`);
    }
  });
});
