import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/** A payload 2.0 event of `POST /v2/x` with no headers or body, for handler-stack unit tests; `overrides` change it. */
export const httpEvent = (overrides: Partial<APIGatewayProxyEventV2> = {}): APIGatewayProxyEventV2 =>
  ({
    version: '2.0',
    routeKey: 'POST /v2/x',
    rawPath: '/v2/x',
    rawQueryString: '',
    headers: {},
    requestContext: { http: { method: 'POST', path: '/v2/x' } },
    isBase64Encoded: false,
    ...overrides,
  }) as APIGatewayProxyEventV2;
