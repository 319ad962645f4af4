import { DomainError } from '#platform/errors.js';

/**
 * A server of the caller's own (an MCP server of a harness) is unreachable or
 * failing: 502 `upstream_unavailable` at the HTTP edge (kind
 * `upstream_failed`), the run failure code of the same name in a run. The
 * detail names the server(s).
 */
export class UpstreamUnavailableError extends DomainError {
  constructor(detail: string, options: { cause?: unknown } = {}) {
    super('upstream_failed', 'upstream_unavailable', detail, options);
  }
}

/** What went wrong with a server, for logs and for the callers that tell cases apart. */
export type McpFailureKind = 'refused' | 'unreachable' | 'http_error' | 'protocol_error' | 'rpc_error' | 'timeout' | 'cancelled';

/** One MCP server failed: 502 `upstream_unavailable` naming it (the run failure code in a run). */
export class McpServerError extends UpstreamUnavailableError {
  constructor(
    readonly server: string,
    /** What went wrong (the DomainError's `kind` is the HTTP-facing one, `upstream_failed`). */
    readonly failure: McpFailureKind,
    reason: string,
    options: { cause?: unknown } = {},
  ) {
    super(`MCP server "${server}" is unreachable or failing: ${reason}`, options);
  }
}
