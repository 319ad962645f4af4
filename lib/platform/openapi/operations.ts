import type { OpenAPIRegistry, ResponseConfig, RouteConfig, ZodMediaTypeObject } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { documentationOf } from '../http/common-schemas.js';
import type { EndpointContract, HeadersDoc, ResponseDoc, StringDoc } from '../http/contract.js';
import { exampleOf, refusalExample } from './examples.js';
import { IDEMPOTENCY_REPLAYED, retryAfter, WWW_AUTHENTICATE } from './headers.js';
import type { Io, JsonSchema } from './json-schemas.js';
import { pageShapeOf } from './pagination.js';
import { MessageSchema, ProblemSchema } from './problem-schemas.js';

type Documented = Extract<EndpointContract, { undocumented?: undefined }>;
type HeadersObject = Exclude<ResponseConfig['headers'], z.ZodObject | undefined>;
type MediaType = ZodMediaTypeObject;

/** A documented contract with its answers: the derived ones and those it states (which replace derived ones). */
export interface Operation {
  contract: Documented;
  answers: Readonly<Record<number, ResponseDoc>>;
}

/** A zod schema as the document states it on one side (JsonSchemas: `collect`, then `resolve`). */
export type Resolve = (schema: z.ZodType, io: Io) => JsonSchema;

/**
 * The answers every operation has unless its contract states them, in its
 * error format: problem documents, or `{message}` on the token calls
 * (errorResponse of the platform's problem module).
 */
function derivedResponses(contract: Documented): Record<number, ResponseDoc> {
  const message = contract.errors === 'message';
  const code = (name: string) => (message ? '' : ` (\`${name}\`)`);
  const badBody = message
    ? 'Body is not JSON, not an object, or has unknown fields.'
    : 'Body is not JSON (`invalid_json`), not an object (`invalid_body`), or has unknown fields (`unknown_field`, with a pointer per field).';
  // Anything that is not a DomainError (the handler's onError).
  const derived: Record<number, ResponseDoc> = { 500: `The service failed${code('internal_error')}; quote the \`X-Request-Id\` when reporting it.` };
  if (contract.body) derived[400] = badBody;
  if (contract.auth === 'bearer') {
    derived[401] = `Missing, malformed, expired or revoked token${code('unauthorized')}.`;
    // From bearer authentication: the token is good, the account suspended.
    derived[403] = `The account is suspended${code('forbidden')}.`;
  }
  if (contract.auth !== 'none') {
    // The account's rate limit, checked for every authenticated request.
    derived[429] = `Past the account's request rate${code('rate_limited')}: its plan's requests per second, in bursts of twice that within 2 seconds; \`Retry-After\` says when to retry.`;
  }
  return derived;
}

/** Loads the answers of every documented contract, in the order given. */
export async function loadOperations(contracts: readonly EndpointContract[]): Promise<Operation[]> {
  const documented = contracts.filter((contract): contract is Documented => contract.undocumented === undefined);
  return Promise.all(documented.map(async (contract) => ({ contract, answers: { ...derivedResponses(contract), ...(await contract.responses()) } })));
}

const IDEMPOTENCY_KEY = z.string().min(1).max(255);

const stringSchema = ({ description, format }: StringDoc, optional: boolean): z.ZodType => {
  const value = format === 'uuid' ? z.uuid() : z.string();
  const present = optional ? value.optional() : value;
  return description ? present.meta({ description }) : present;
};
const objectOf = <D extends StringDoc>(docs: Readonly<Record<string, D>>, optional: (doc: D) => boolean) =>
  Object.fromEntries(Object.entries(docs).map(([name, doc]) => [name, stringSchema(doc, optional(doc))]));

/** One media type: the schema as its side states it, and the example recorded for it. */
const mediaType = (schema: z.ZodType, io: Io, resolve: Resolve, example = exampleOf(schema)): MediaType => ({
  schema: resolve(schema, io) as MediaType['schema'],
  ...(example === undefined ? {} : { example }),
});

/** Parameters through zod-to-openapi (a parameter with a default is not required there); the body as zod's input states it. */
function requestOf(contract: Documented, resolve: Resolve): RouteConfig['request'] {
  const { params, query, body, idempotency } = contract;
  const headers = {
    ...objectOf(contract.headers ?? {}, (doc) => !doc.required),
    ...(idempotency ? { 'Idempotency-Key': idempotency === 'required' ? IDEMPOTENCY_KEY : IDEMPOTENCY_KEY.optional() } : {}),
  };
  const request = {
    ...(params ? { params: z.object(objectOf(params, () => false)) } : {}),
    ...(query ? { query } : {}),
    ...(Object.keys(headers).length > 0 ? { headers: z.object(headers) } : {}),
    ...(body ? { body: { required: true, content: { 'application/json': mediaType(documentationOf(body), 'input', resolve) } } } : {}),
  };
  return Object.keys(request).length > 0 ? request : undefined;
}

/** The first field of the body as the document states it: where the examples of its 422s point. */
function firstField({ body }: Documented): string | undefined {
  const documented = body && documentationOf(body);
  if (documented instanceof z.ZodObject) return Object.keys(documented.shape)[0];
  if (documented instanceof z.ZodDiscriminatedUnion) return documented.def.discriminator;
  return undefined;
}

const REFUSALS = new WeakMap<z.ZodType, z.ZodType>();
/** One schema per extension, as `collect` and `resolve` look a schema up by identity. */
const refusalWith = (body: z.ZodType, extension: z.ZodType): z.ZodType => {
  const known = REFUSALS.get(extension);
  if (known) return known;
  const refusal = z.union([z.intersection(body, extension), body]);
  REFUSALS.set(extension, refusal);
  return refusal;
};

const answer = (description: string, headers: HeadersDoc | undefined, content: ResponseConfig['content']): ResponseConfig => ({
  description,
  ...(headers && Object.keys(headers).length > 0 ? { headers: headers as HeadersObject } : {}),
  ...(content ? { content } : {}),
});

/**
 * One answer as the document states it. The headers the stack sends are
 * added: WWW-Authenticate on a 401, Retry-After on a 429 and on an idempotent write's 409
 * (a key in flight), Idempotency-Replayed on its successes.
 */
function responseOf(contract: Documented, status: number, doc: ResponseDoc, resolve: Resolve): ResponseConfig {
  const { description, headers, schema, mediaType: type, components, alternatives } = typeof doc === 'string' ? { description: doc } : doc;
  if (status >= 400) {
    if (schema && contract.errors === 'message') throw new Error(`${contract.id}: a ${status} answers {message}; it takes no schema.`);
    const derived =
      status === 401
        ? WWW_AUTHENTICATE
        : status === 429
          ? retryAfter('sent with every 429, at least `1`')
          : status === 409 && contract.idempotency
            ? retryAfter('sent with `idempotency_key_in_flight` (`1`)')
            : {};
    const format = contract.errors === 'message' ? 'message' : 'problem';
    const [media, body] = format === 'message' ? ['application/json', MessageSchema] : ['application/problem+json', ProblemSchema];
    // A stated schema adds members to the problem document (RFC 9457 extension members), as the allowance 429 does;
    // the status's other refusals (a 429 `rate_limited`) carry none.
    const refusal = schema ? refusalWith(body, schema) : body;
    const example = refusalExample({ status, description, format, field: firstField(contract), extension: schema && exampleOf(schema) });
    return answer(description, { ...derived, ...headers }, { [media]: mediaType(refusal, 'output', resolve, example) });
  }
  for (const component of Object.values(components ?? {})) resolve(component, 'output');
  const replayed = contract.idempotency ? IDEMPOTENCY_REPLAYED : {};
  const others = Object.entries(alternatives ?? {}).map(([other, otherSchema]) => [other, mediaType(otherSchema, 'output', resolve)]);
  const content = schema && { [type ?? 'application/json']: mediaType(schema, 'output', resolve), ...Object.fromEntries(others) };
  return answer(description, { ...replayed, ...headers }, content);
}

/** The security schemes' names: `security` of each operation names one, or none (`[]`, so the document-wide default cannot be read into it). */
const SECURITY = { bearer: [{ bearer: [] }], session: [{ session: [] }], none: [] };

export function registerSecuritySchemes(registry: OpenAPIRegistry): void {
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API token minted with POST /v1/api-tokens. The credential of every operation but minting (session cookie) and the public ones (`security: []`).',
  });
  registry.registerComponent('securitySchemes', 'session', {
    type: 'apiKey',
    in: 'cookie',
    name: 'session',
    description: 'Browser session from POST /v1/auth/login; a credential only on POST /v1/api-tokens.',
  });
}

/** The page shape an operation answers with its 200, if it is a list. */
export const pageOf = ({ answers }: Operation) => {
  const ok = answers[200];
  return pageShapeOf(typeof ok === 'object' ? ok.schema : undefined);
};

/** The operation of a contract; a list's description ends with the sentence of its page shape. */
export function routeOf(operation: Operation, resolve: Resolve): RouteConfig {
  const { contract, answers } = operation;
  const request = requestOf(contract, resolve);
  const description = [contract.description, pageOf(operation)?.sentence].filter(Boolean).join('\n\n');
  return {
    method: contract.method.toLowerCase() as RouteConfig['method'],
    path: contract.path,
    operationId: contract.operationId,
    summary: contract.summary,
    ...(description ? { description } : {}),
    tags: contract.tags.map((tag) => tag.name),
    security: SECURITY[contract.auth],
    ...(request ? { request } : {}),
    responses: Object.fromEntries(Object.entries(answers).map(([status, doc]) => [status, responseOf(contract, Number(status), doc, resolve)])),
  };
}
