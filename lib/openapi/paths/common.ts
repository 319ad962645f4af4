import type { OpenAPIRegistry, ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { MessageSchema, ProblemSchema } from '../responses/common.js';

export interface Common {
  bearer: Record<string, string[]>[];
  session: Record<string, string[]>[];
  problem: (description: string) => ResponseConfig;
  message: (description: string) => ResponseConfig;
}

export function registerCommon(registry: OpenAPIRegistry): Common {
  const bearer = registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API token minted with POST /v1/api-tokens. The only credential on v2 and on every v1 call but minting.',
  });
  const session = registry.registerComponent('securitySchemes', 'session', {
    type: 'apiKey',
    in: 'cookie',
    name: 'session',
    description: 'Browser session from POST /v1/auth/login; a credential only on POST /v1/api-tokens.',
  });
  return {
    bearer: [{ [bearer.name]: [] }],
    session: [{ [session.name]: [] }],
    problem: (description) => ({ description, content: { 'application/problem+json': { schema: ProblemSchema } } }),
    message: (description) => ({ description, content: { 'application/json': { schema: MessageSchema } } }),
  };
}
