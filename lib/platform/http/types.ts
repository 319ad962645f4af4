import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';

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
}

/** What the middleware stack has established about a request. */
export interface ApiState {
  requestId: string;
  principal?: Principal;
  body?: unknown;
  /** The body as the client sent it, before schema defaults. */
  rawBody?: unknown;
  query?: unknown;
}

export type ApiContext = Context & { api: ApiState };
