import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { LimitsInForce } from '../config/plans.js';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResult = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
};

/** The authenticated caller of a bearer-token request. */
export interface Principal {
  accountId: string;
  tokenId: string;
  plan: string;
  /** The account's limits in force (plan and operator overrides), read with the token: no extra round trip. */
  limits: LimitsInForce;
}

/** What the middleware stack has established about a request. */
export interface ApiState {
  requestId: string;
  principal?: Principal;
  body?: unknown;
  /** The body as the client sent it, before schema defaults. */
  rawBody?: unknown;
  query?: unknown;
  /**
   * The account's rate limit check, started by authentication: rejects with
   * a 429 when the request is past the limit. Writes and streams wait for it
   * before they run; a GET runs beside it and is answered only once it has
   * resolved (lib/platform/http/handler.ts). Already guarded against going
   * unhandled, so a request refused for another reason first leaks nothing.
   */
  admission?: Promise<void>;
}

export type ApiContext = Context & { api: ApiState };
