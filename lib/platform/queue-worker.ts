import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type * as core from 'zod/v4/core';
// `zod/v4-mini`, the specifier the MCP SDK imports too, not `zod/mini`: bundled beside the SDK (run-tasks), the two
// specifiers of one module made esbuild initialise it after our schemas read it, and the bundle threw at load
// (test/infra/bundles-load.test.ts loads every deployed bundle). Every queue's schema module imports it the same way.
import { safeParse } from 'zod/v4-mini';
import { observeInvocation } from './observability/invocation.js';
import { logger, withLogScope } from './observability/logger.js';

/**
 * What a queue carries: the kind of its messages (for log lines) and the
 * zod schema each message is validated with before its worker sees it.
 * Declared by the feature with the message's type, which is derived from
 * the schema (`NODE_TASK_MESSAGE`, lib/execution/queue-messages.ts), in a
 * module of its own that only workers load (a handler that sends loads no
 * zod at init), with `zod/mini` (workers are size-budgeted) and
 * `looseObject`, so that a field a newer sender adds still passes.
 */
export interface QueueMessage<S extends core.$ZodType = core.$ZodType> {
  readonly kind: string;
  readonly schema: S;
}

/** The message a schema validates, as its type: the fields the schema names (those a loose object lets through are still on the object, but untyped). */
export type MessageOf<S extends core.$ZodType> = NamedFields<core.output<S>>;
type NamedFields<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

/**
 * The handler of an SQS worker: each record of the batch is processed on
 * its own (Powertools batch, at the same time as the others); a record that
 * throws is reported in `batchItemFailures` and comes back after the
 * visibility timeout, the others are deleted. Each body is parsed as JSON
 * and validated with the queue's schema first: one that is not JSON or not
 * a valid message is a batch item failure with one error line (its kind,
 * message id and zod's issues, never the body), so it ends in the
 * dead-letter queue like any failing message (a dead letter stays there).
 * Each record's log lines carry its message id as `request_id` (and
 * `account_id` when the message names its account); the metrics the batch
 * counted are published when it ends.
 */
export function queueWorker<S extends core.$ZodType>(
  message: QueueMessage<S>,
  handle: (message: MessageOf<S>, record: SQSRecord, context: Context) => Promise<unknown>,
) {
  const processor = new BatchProcessor(EventType.SQS);
  return (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    observeInvocation(context, () => {
      const record = (r: SQSRecord) => {
        const body = parseJson(r.body);
        return withLogScope({ request_id: r.messageId, ...accountOf(body) }, async () => {
          const parsed = body.ok ? safeParse(message.schema, body.value, { error: describeIssue }) : undefined;
          if (parsed?.success) return handle(parsed.data as MessageOf<S>, r, context);
          const issues = parsed ? parsed.error.issues : [{ path: [], message: 'not JSON' }];
          logger().error('malformed queue message', {
            message_kind: message.kind,
            message_id: r.messageId,
            queue: r.eventSourceARN?.split(':').at(-1),
            issues: issues.slice(0, MAX_ISSUES).map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
            issue_count: issues.length,
            body_length: r.body.length,
            ...(body.ok ? {} : { body_excerpt: r.body.slice(0, EXCERPT_CHARS) }),
          });
          throw new MalformedMessageError(`malformed ${message.kind} message ${r.messageId}`);
        });
      };
      return processPartialResponse(event, record, processor, { context, throwOnFullBatchFailure: false });
    });
}

/** At most this many of a message's issues on its line, and this many characters of a body that is not JSON. */
const MAX_ISSUES = 10;
const EXCERPT_CHARS = 80;

class MalformedMessageError extends Error {
  override name = 'MalformedMessageError';
}

type Json = { ok: true; value: unknown } | { ok: false };

/** The body as JSON, or that it is not (the parser's message, which quotes the body, is left out). */
function parseJson(body: string): Json {
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    return { ok: false };
  }
}

/** The account a message is about, when its body names one (`account_id`), for its log lines; nothing for any other body. */
function accountOf(body: Json): { account_id?: string } {
  const id = body.ok && typeof body.value === 'object' && body.value !== null ? (body.value as { account_id?: unknown }).account_id : undefined;
  return typeof id === 'string' ? { account_id: id } : {};
}

/**
 * What is wrong, without the value: `zod/mini` loads no locale, so its own
 * messages are all "Invalid input". A received type is named, never shown.
 */
const describeIssue: core.$ZodErrorMap = (issue) => {
  if (issue.code === 'invalid_type') return `expected ${issue.expected}, received ${typeName(issue.input)}`;
  if (issue.code === 'invalid_value') return `expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}`;
  return issue.code ? `invalid (${issue.code})` : undefined;
};

const typeName = (value: unknown): string => (value === undefined ? 'nothing' : value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);
