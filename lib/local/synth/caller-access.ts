import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { headerValue, type RawRequest } from './aws-requests.js';
import { evaluate, type IamRequest } from './iam-policy.js';
import type { PolicyStatement } from './model.js';

/**
 * Who calls (the access key id of the SigV4 Authorization header, one per
 * local function) and whether its role lets it: shared by the IAM proxy and
 * the local Secrets Manager. Signatures are not checked: the keys only tell
 * local functions apart, they are not secrets.
 */

export interface Principal {
  functionName: string;
  roleName: string;
  statements: PolicyStatement[];
}

export interface Denial {
  functionName: string;
  action: string;
  resource: string;
  reason: 'implicitDeny' | 'explicitDeny' | 'unknownAccessKey';
}

export interface AccessOptions {
  accountId: string;
  /** Access key id → the function it was given to. */
  principals: ReadonlyMap<string, Principal>;
  /** Keys that are no function's but pass unchecked (the operator CLI, the local stack's admin clients: `local`). */
  trustedKeys?: readonly string[];
  onDenied?: (denial: Denial) => void;
}

export interface Refusal {
  denial: Denial;
  /** The message AWS would give, for the AccessDeniedException. */
  message: string;
}

export const accessKeyId = (headers: RawRequest['headers']): string | undefined =>
  /Credential=([^/,\s]+)\//.exec(headerValue(headers, 'authorization') ?? '')?.[1];

/** Undefined when every IAM request of the call is allowed; else the first refusal, reported to onDenied. */
export function authorize(options: AccessOptions, raw: RawRequest, requests: IamRequest[]): Refusal | undefined {
  const key = accessKeyId(raw.headers);
  const principal = key === undefined ? undefined : options.principals.get(key);
  const refusal = principal ? refusalOf(principal, requests, options.accountId) : refusalOfUnknown(key, options, requests);
  if (refusal) options.onDenied?.(refusal.denial);
  return refusal;
}

function refusalOf(principal: Principal, requests: IamRequest[], accountId: string): Refusal | undefined {
  for (const request of requests) {
    const decision = evaluate(principal.statements, request);
    if (decision === 'allowed') continue;
    const { action, resource } = request;
    const user = `arn:aws:sts::${accountId}:assumed-role/${principal.roleName}/${principal.functionName}`;
    const because =
      decision === 'explicitDeny' ? 'with an explicit deny in an identity-based policy' : `because no identity-based policy allows the ${action} action`;
    return {
      denial: { functionName: principal.functionName, action, resource, reason: decision },
      message: `User: ${user} is not authorized to perform: ${action} on resource: ${resource} ${because}`,
    };
  }
  return undefined;
}

function refusalOfUnknown(key: string | undefined, options: AccessOptions, requests: IamRequest[]): Refusal | undefined {
  if (key !== undefined && options.trustedKeys?.includes(key)) return undefined;
  const { action, resource } = requests[0] ?? { action: '', resource: '*' };
  return {
    denial: { functionName: `(access key ${key ?? 'missing'})`, action, resource, reason: 'unknownAccessKey' },
    message: `The access key ${key ?? '(none)'} was given to no local function and is not trusted: ${action} on resource: ${resource} is refused`,
  };
}

/** The wire protocols answered locally, each with its own error shape. */
export type Protocol = 'dynamodb' | 'sqsJson' | 'sqsQuery' | 'secretsmanager';

/**
 * An AccessDeniedException as each protocol states it, so that the AWS SDK
 * v3 raises an error named `AccessDeniedException`. SQS's JSON protocol is
 * query-compatible: the SDK names the error after the code of the
 * `x-amzn-query-error` header before `__type`.
 */
export function answerRefusal(response: ServerResponse, protocol: Protocol, message: string): void {
  const requestId = randomUUID();
  if (protocol === 'sqsQuery') {
    const escaped = message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const xml = `<?xml version="1.0"?><ErrorResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>${escaped}</Message><Detail/></Error><RequestId>${requestId}</RequestId></ErrorResponse>`;
    response.writeHead(403, { 'content-type': 'text/xml', 'x-amzn-RequestId': requestId }).end(xml);
    return;
  }
  const headers: Record<string, string> = { 'x-amzn-RequestId': requestId };
  let body: Record<string, string>;
  if (protocol === 'dynamodb') {
    Object.assign(headers, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-ErrorType': 'AccessDeniedException' });
    body = { __type: 'com.amazon.coral.service#AccessDeniedException', Message: message };
  } else if (protocol === 'sqsJson') {
    Object.assign(headers, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': 'AccessDeniedException;Sender' });
    body = { __type: 'com.amazon.coral.service#AccessDeniedException', message };
  } else {
    headers['content-type'] = 'application/x-amz-json-1.1';
    body = { __type: 'AccessDeniedException', Message: message };
  }
  response.writeHead(400, headers).end(JSON.stringify(body));
}
