import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, test } from 'vitest';
import { documentFaults } from '#app/openapi/completeness.js';
import { servedOpenApi } from '#app/openapi/served.js';
import { ENDPOINTS } from '#app/registry.generated.js';
import { documentationOf } from '#platform/http/common-schemas.js';
import { exampleOf } from '#platform/openapi/examples.js';
import { loadOperations } from '#platform/openapi/operations.js';
import { RUN_EVENT_TYPES } from '#runs/model.js';
import { checkDefinition } from '#workflows/definition-validation.js';
import { NODE_TYPES, WorkflowDefinitionInput } from '#workflows/schemas/workflow-definition.js';

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON the tests read field by field; typing it would restate OpenAPI
type Json = Record<string, any>;

// The document GET /openapi.json serves: what a client generator reads.
const document = JSON.parse(servedOpenApi('https://api.example.com')) as Json;
const schemas = document.components.schemas as Record<string, Json>;
const operations = await loadOperations(ENDPOINTS);

/** Every media type of every operation and delivery, with where it is. */
function mediaTypes(): Array<{ at: string; media: Json }> {
  const found: Array<{ at: string; media: Json }> = [];
  for (const [group, items] of [
    ['', document.paths],
    ['webhook ', document.webhooks],
  ] as const) {
    for (const [path, item] of Object.entries<Json>(items)) {
      for (const [method, operation] of Object.entries<Json>(item)) {
        for (const [type, media] of Object.entries<Json>(operation.requestBody?.content ?? {}))
          found.push({ at: `${group}${method} ${path} body ${type}`, media });
        for (const [status, response] of Object.entries<Json>(operation.responses)) {
          for (const [type, media] of Object.entries<Json>(response.content ?? {})) found.push({ at: `${group}${method} ${path} ${status} ${type}`, media });
        }
      }
    }
  }
  return found;
}

describe('the served OpenAPI document is complete', () => {
  test('every operation has a summary, a description, its examples, its refusals’ codes and its page shape; no text points into the repository', () => {
    assert.deepEqual(documentFaults(document), []);
  });

  test('the check finds each kind of fault', () => {
    const bad = structuredClone(document);
    const create = bad.paths['/v2/runs'].post;
    delete create.description;
    delete create.requestBody.content['application/json'].example;
    delete create.responses['201'].content['application/json'].example;
    create.responses['404'] = {
      description: 'No such run.',
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, example: {} } },
    };
    bad.paths['/v2/runs'].get.description = 'A page of runs.';
    bad.components.schemas.Run.description = 'See lib/runs/model.ts and README.';
    assert.deepEqual(documentFaults(bad), [
      'GET /v2/runs: answers a page without saying which shape',
      'POST /v2/runs: no description',
      'POST /v2/runs: its application/json request body has no example',
      'POST /v2/runs: its 201 application/json body has no example',
      'POST /v2/runs: its 404 names no problem code',
      '#/components/schemas/Run/description: points into the repository (lib/)',
    ]);
  });

  test('no description names a file of the repository', () => {
    const texts = JSON.stringify(document, (key, value) => (key === 'example' || key === 'examples' ? undefined : value));
    for (const fragment of ['lib/', 'functions/', '.ts"', '.ts ', '.ts`', 'docs/', 'README', 'decisions.md']) {
      assert.ok(!texts.includes(fragment), `the document mentions ${fragment}`);
    }
  });
});

describe('its examples are valid', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // The components under an absolute id, so that each media type's `#/components/…` resolves against them.
  const DOCUMENT = 'https://api.example.com/openapi.json';
  ajv.addSchema({ $id: DOCUMENT, components: document.components });
  const absolute = (schema: unknown) => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOCUMENT}#/components/`));

  test('each example is valid against its media type’s JSON Schema', () => {
    const invalid = mediaTypes()
      .filter(({ media }) => media.schema && media.example !== undefined)
      .flatMap(({ at, media }) => {
        const validate = ajv.compile(absolute(media.schema));
        return validate(media.example) ? [] : [`${at}: ${ajv.errorsText(validate.errors)}`];
      });
    assert.deepEqual(invalid, []);
    assert.ok(mediaTypes().length > 400);
  });

  test('a request example is accepted by the schema its handler parses with, a response example by the zod schema it documents', async () => {
    for (const { contract, answers } of operations) {
      if (contract.body) {
        const parsed = contract.body.safeParse(exampleOf(documentationOf(contract.body)));
        assert.ok(parsed.success, `${contract.id}: ${parsed.error?.message}`);
      }
      for (const [status, answer] of Object.entries(answers)) {
        if (typeof answer !== 'object' || !answer.schema || Number(status) >= 400 || answer.mediaType === 'text/event-stream') continue;
        const parsed = answer.schema.safeParse(exampleOf(answer.schema));
        assert.ok(parsed.success, `${contract.id} ${status}: ${parsed.error?.message}`);
      }
    }
  });

  test('the example definition is a valid graph', async () => {
    const example = document.paths['/v1/workflows/{id}/versions'].post.requestBody.content['application/json'].example;
    const checked = await checkDefinition(WorkflowDefinitionInput.parse(example.definition));
    assert.deepEqual(checked.errors, []);
  });
});

describe('requests and responses are stated in their own mode', () => {
  const required = (name: string) => schemas[name]?.required as string[];

  test('a request field with a default is not required; the response lists every field it always sends', () => {
    assert.ok(!required('CreateRunRequest').includes('if_busy'));
    assert.equal(schemas.CreateRunRequest!.properties.if_busy.default, 'enqueue');
    assert.ok(!required('CreateMachineRequest').includes('size'));
    assert.ok(!required('CreateEvaluationRequest').includes('run'));
    assert.deepEqual(required('RetryPolicyInput'), ['max_attempts']);
    assert.deepEqual(required('RetryPolicy'), ['max_attempts', 'backoff_ms', 'backoff_multiplier', 'max_backoff_ms', 'jitter']);
    assert.ok(!required('AgentConfigInput').includes('system_prompt'));
    assert.ok(required('AgentConfig').includes('system_prompt'));
    for (const field of ['tools', 'mcp_servers', 'max_turns']) assert.ok(required('HarnessConfig').includes(field), field);
    const limit = document.paths['/v2/runs'].get.parameters.find((p: Json) => p.name === 'limit');
    assert.equal(limit.required, false);
  });

  test('a response object is open to fields added later; a request body is closed (unknown fields are 400)', () => {
    assert.equal(schemas.Run!.additionalProperties, undefined);
    assert.equal(schemas.CreateRunRequest!.additionalProperties, false);
  });

  test('a request body is required', () => {
    for (const { at, media } of mediaTypes().filter(({ at }) => at.includes(' body '))) assert.ok(media.schema, at);
    assert.equal(document.paths['/v2/runs'].post.requestBody.required, true);
  });
});

describe('unions are discriminated on `type`', () => {
  /** The union's options by the value of `type` they carry. */
  function optionsOf(name: string): Record<string, Json> {
    const union = schemas[name]!;
    assert.equal(union.discriminator.propertyName, 'type');
    const refs = union.oneOf.map((option: Json) => option.$ref);
    assert.deepEqual(Object.values(union.discriminator.mapping).sort(), [...refs].sort());
    return Object.fromEntries(
      Object.entries<string>(union.discriminator.mapping).map(([value, ref]) => {
        const option = schemas[ref.replace('#/components/schemas/', '')]!;
        assert.equal(option.properties.type.const, value, `${ref}: type`);
        assert.ok(option.required.includes('type'), `${ref}: type is required`);
        return [value, option];
      }),
    );
  }

  test('a run event: each type its schema and its own data', () => {
    const events = optionsOf('RunEvent');
    assert.deepEqual(Object.keys(events).sort(), [...RUN_EVENT_TYPES].sort());
    assert.deepEqual(events.message!.properties.data.required, ['role', 'text']);
    assert.deepEqual(schemas.RunEventList!.properties.data.items, { $ref: '#/components/schemas/RunEvent' });
  });

  test('a workflow node: each type its schema and its own config, as the request states it and as a version stores it', () => {
    const nodes = optionsOf('WorkflowNode');
    assert.deepEqual(Object.keys(nodes).sort(), [...NODE_TYPES].sort());
    assert.deepEqual(nodes.transform!.properties.config, { $ref: '#/components/schemas/TransformConfig' });
    assert.ok(nodes.transform!.required.includes('config'));
    assert.ok(!nodes.condition!.required.includes('config'), 'a config with nothing required may be left out');
    assert.deepEqual(nodes.agent!.properties.config, { $ref: '#/components/schemas/AgentConfigInput' });
    const stored = optionsOf('WorkflowVersionNode');
    assert.deepEqual(Object.keys(stored).sort(), [...NODE_TYPES].sort());
    assert.deepEqual(stored.agent!.properties.config, { $ref: '#/components/schemas/AgentConfig' });
    assert.ok(stored.condition!.required.includes('id') && stored.condition!.required.includes('config'));
  });

  test('an interaction’s response', () => {
    assert.deepEqual(Object.keys(optionsOf('InteractionResponse')).sort(), ['answer', 'approval']);
  });
});
