import type { OpenAPIRegistry, ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { MessageSchema, ProblemSchema } from './problem-schemas.js';

type HeadersObject = NonNullable<ResponseConfig['headers']>;
type SecurityRequirementObject = NonNullable<RouteConfig['security']>[number];

/**
 * The error answers every route shares, in one body format: problem
 * documents everywhere but the token calls, which answer `{message}`
 * (lib/platform/http/problem.ts, errorResponse).
 */
export interface ErrorResponses {
  /** An error answer with this format's body. */
  body: (description: string, headers?: HeadersObject) => ResponseConfig;
  /** 401, with the `WWW-Authenticate` header errorResponse adds to every 401. */
  unauthorized: (description: string) => ResponseConfig;
  /** 403 from bearer authentication (lib/accounts/bearer-auth.ts): the token is good, the account suspended. */
  suspended: ResponseConfig;
  /** 500: anything that is not a DomainError (lib/platform/http/handler.ts, onError). */
  internal: ResponseConfig;
}

export interface Common {
  /** No credential: `security: []`, so the document-wide default cannot be read into it. */
  public: SecurityRequirementObject[];
  bearer: SecurityRequirementObject[];
  session: SecurityRequirementObject[];
  problem: ErrorResponses['body'];
  message: ErrorResponses['body'];
  problems: ErrorResponses;
  messages: ErrorResponses;
  headers: {
    /** `Retry-After` in seconds; `when` says on which answers it is sent. */
    retryAfter: (when: string) => HeadersObject;
    idempotencyReplayed: HeadersObject;
  };
}

export function registerCommon(registry: OpenAPIRegistry): Common {
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
  const wwwAuthenticate: HeadersObject = {
    'WWW-Authenticate': { description: 'Sent with every 401: `Bearer realm="<realm>"`.', schema: { type: 'string' } },
  };
  const retryAfter = (when: string): HeadersObject => ({
    'Retry-After': { description: `Seconds to wait before retrying; ${when}.`, schema: { type: 'integer', minimum: 0 } },
  });
  const problem: ErrorResponses['body'] = (description, headers) => ({
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/problem+json': { schema: ProblemSchema } },
  });
  const message: ErrorResponses['body'] = (description, headers) => ({
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: MessageSchema } },
  });
  const responses = (body: ErrorResponses['body'], codes: boolean): ErrorResponses => {
    const code = (name: string) => (codes ? ` (\`${name}\`)` : '');
    return {
      body,
      unauthorized: (description) => body(description, wwwAuthenticate),
      suspended: body(`The account is suspended${code('forbidden')}.`),
      internal: body(`The service failed${code('internal_error')}; quote the \`X-Request-Id\` when reporting it.`),
    };
  };
  return {
    public: [],
    bearer: [{ [bearer.name]: [] }],
    session: [{ [session.name]: [] }],
    problem,
    message,
    problems: responses(problem, true),
    messages: responses(message, false),
    headers: {
      retryAfter,
      idempotencyReplayed: {
        'Idempotency-Replayed': {
          description: '`true` on a replay: the first answer to this Idempotency-Key, returned again.',
          schema: { type: 'string', const: 'true' },
        },
      },
    },
  };
}
