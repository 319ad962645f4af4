import type { OpenAPIRegistry, ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import type { EndpointContract, HeadersDoc, ResponseDoc, StringDoc } from '../http/contract.js';
import { IDEMPOTENCY_REPLAYED, retryAfter, WWW_AUTHENTICATE } from './headers.js';
import { MessageSchema, ProblemSchema } from './problem-schemas.js';

type Documented = Extract<EndpointContract, { undocumented?: undefined }>;
type HeadersObject = Exclude<ResponseConfig['headers'], z.ZodObject | undefined>;

/**
 * The answers every operation has unless its contract states them, in its
 * error format: problem documents, or `{message}` on the token calls
 * (lib/platform/http/problem.ts, errorResponse).
 */
function derivedResponses(contract: Documented): Record<number, ResponseDoc> {
  const message = contract.errors === 'message';
  const code = (name: string) => (message ? '' : ` (\`${name}\`)`);
  const badBody = message
    ? 'Body is not JSON, not an object, or has unknown fields.'
    : 'Body is not JSON (`invalid_json`), not an object (`invalid_body`), or has unknown fields (`unknown_field`, with a pointer per field).';
  // Anything that is not a DomainError (lib/platform/http/handler.ts, onError).
  const derived: Record<number, ResponseDoc> = { 500: `The service failed${code('internal_error')}; quote the \`X-Request-Id\` when reporting it.` };
  if (contract.body) derived[400] = badBody;
  if (contract.auth === 'bearer') {
    derived[401] = `Missing, malformed, expired or revoked token${code('unauthorized')}.`;
    // From bearer authentication (lib/accounts/bearer-auth.ts): the token is good, the account suspended.
    derived[403] = `The account is suspended${code('forbidden')}.`;
  }
  if (contract.auth !== 'none') {
    // The account's rate limit, checked for every authenticated request (lib/accounts/rate-limiter.ts, lib/platform/http/handler.ts).
    derived[429] = `Past the account's request rate${code('rate_limited')}: its plan's requests per second, in bursts of twice that within 2 seconds; \`Retry-After\` says when to retry.`;
  }
  return derived;
}

const IDEMPOTENCY_KEY = z.string().min(1).max(255);

const stringSchema = ({ description, format }: StringDoc, optional: boolean): z.ZodType => {
  const value = format === 'uuid' ? z.uuid() : z.string();
  const present = optional ? value.optional() : value;
  return description ? present.meta({ description }) : present;
};
const objectOf = <D extends StringDoc>(docs: Readonly<Record<string, D>>, optional: (doc: D) => boolean) =>
  Object.fromEntries(Object.entries(docs).map(([name, doc]) => [name, stringSchema(doc, optional(doc))]));

function requestOf(contract: Documented): RouteConfig['request'] {
  const { params, query, body, idempotency } = contract;
  const headers = {
    ...objectOf(contract.headers ?? {}, (doc) => !doc.required),
    ...(idempotency ? { 'Idempotency-Key': idempotency === 'required' ? IDEMPOTENCY_KEY : IDEMPOTENCY_KEY.optional() } : {}),
  };
  const request = {
    ...(params ? { params: z.object(objectOf(params, () => false)) } : {}),
    ...(query ? { query } : {}),
    ...(Object.keys(headers).length > 0 ? { headers: z.object(headers) } : {}),
    ...(body ? { body: { content: { 'application/json': { schema: body } } } } : {}),
  };
  return Object.keys(request).length > 0 ? request : undefined;
}

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
function responseOf(registry: OpenAPIRegistry, contract: Documented, status: number, doc: ResponseDoc): ResponseConfig {
  const { description, headers, schema, mediaType, components, alternatives } = typeof doc === 'string' ? { description: doc } : doc;
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
    const [type, body] = contract.errors === 'message' ? ['application/json', MessageSchema] : ['application/problem+json', ProblemSchema];
    // A stated schema adds members to the problem document (RFC 9457 extension members), as the allowance 429 does.
    return answer(description, { ...derived, ...headers }, { [type]: { schema: schema ? z.intersection(body, schema) : body } });
  }
  for (const [name, component] of Object.entries(components ?? {})) {
    const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(component, { target: 'draft-2020-12', io: 'output' });
    registry.registerComponent('schemas', name, jsonSchema as never);
  }
  const replayed = contract.idempotency ? IDEMPOTENCY_REPLAYED : {};
  const others = Object.entries(alternatives ?? {}).map(([type, other]) => [type, { schema: other }]);
  return answer(description, { ...replayed, ...headers }, schema && { [mediaType ?? 'application/json']: { schema }, ...Object.fromEntries(others) });
}

/**
 * Registers the security schemes, then the operation of every documented
 * contract, in the order given, with its responses loaded: the derived ones
 * and those the contract states (which replace derived ones).
 */
export async function registerOperations(registry: OpenAPIRegistry, contracts: readonly EndpointContract[]): Promise<void> {
  const bearer = registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API token minted with POST /v1/api-tokens. The credential of every operation but minting (session cookie) and the public ones (`security: []`).',
  });
  const session = registry.registerComponent('securitySchemes', 'session', {
    type: 'apiKey',
    in: 'cookie',
    name: 'session',
    description: 'Browser session from POST /v1/auth/login; a credential only on POST /v1/api-tokens.',
  });
  // `security: []` for no credential, so the document-wide default cannot be read into it.
  const security = { bearer: [{ [bearer.name]: [] }], session: [{ [session.name]: [] }], none: [] };
  for (const contract of contracts) {
    if (contract.undocumented !== undefined) continue;
    const stated = { ...derivedResponses(contract), ...(await contract.responses()) };
    const request = requestOf(contract);
    registry.registerPath({
      method: contract.method.toLowerCase() as RouteConfig['method'],
      path: contract.path,
      operationId: contract.operationId,
      summary: contract.summary,
      ...(contract.description ? { description: contract.description } : {}),
      tags: contract.tags.map((tag) => tag.name),
      security: security[contract.auth],
      ...(request ? { request } : {}),
      responses: Object.fromEntries(Object.entries(stated).map(([status, doc]) => [status, responseOf(registry, contract, Number(status), doc)])),
    });
  }
}
