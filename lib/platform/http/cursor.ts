import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { CursorFilterMismatchError, CursorInvalidError } from '../errors.js';
import { purposeKey, type ServiceKeySource, serviceKey } from '../secrets/service-key.js';

/**
 * Opaque pagination cursors. A cursor records which list (scope) and which
 * filters it was issued for, so a cursor reused under other filters answers
 * 400 cursor_filter_mismatch instead of silently paging something else, and
 * is signed with a key derived from the service key (HMAC-SHA256), so that
 * anything the service did not issue is cursor_invalid: the payload is
 * readable base64 of a raw DynamoDB key, and a plain checksum beside it
 * could be recomputed by anyone who changed that key. The position inside
 * is checked again by the repository before use.
 *
 * Reading the key is async (Secrets Manager in AWS, cached by Powertools),
 * so a route that issues or reads cursors states `serviceKey: true` in its
 * contract: the stack grants it the secret.
 */
interface CursorBody {
  s: string;
  f: string;
  p: Record<string, unknown>;
}

const CURSOR_PURPOSE = 'cursor';
/** 128 bits of the MAC, as base64url. */
const MAC_LENGTH = 22;

const mac = (key: Buffer, payload: string): string =>
  createHmac('sha256', purposeKey(key, CURSOR_PURPOSE)).update(payload).digest('base64url').slice(0, MAC_LENGTH);

const filterHash = (filters: Record<string, unknown>): string =>
  createHash('sha256')
    .update(
      JSON.stringify(
        Object.entries(filters)
          .filter(([, v]) => v !== undefined)
          .sort(([a], [b]) => a.localeCompare(b)),
      ),
    )
    .digest('base64url')
    .slice(0, 16);

/** A cursor for `position` in the list `scope` under `filters`. `key`: the process's service key unless a test gives one. */
export async function encodeCursor(
  scope: string,
  filters: Record<string, unknown>,
  position: Record<string, unknown>,
  key: ServiceKeySource = serviceKey(),
): Promise<string> {
  const payload = Buffer.from(JSON.stringify({ s: scope, f: filterHash(filters), p: position } satisfies CursorBody)).toString('base64url');
  return `${payload}.${mac(await key.load(), payload)}`;
}

/** The position a cursor of this service carries, for `scope` under `filters`; 400 cursor_invalid or cursor_filter_mismatch otherwise. */
export async function decodeCursor(
  cursor: string,
  scope: string,
  filters: Record<string, unknown>,
  key: ServiceKeySource = serviceKey(),
): Promise<Record<string, unknown>> {
  const [payload, sent, extra] = cursor.split('.');
  if (!payload || !sent || extra !== undefined || sent.length !== MAC_LENGTH) throw new CursorInvalidError();
  const [given, expected] = [Buffer.from(sent), Buffer.from(mac(await key.load(), payload))];
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new CursorInvalidError();
  let body: CursorBody;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as CursorBody;
  } catch {
    throw new CursorInvalidError();
  }
  if (typeof body !== 'object' || body === null || typeof body.p !== 'object' || body.p === null) throw new CursorInvalidError();
  if (body.s !== scope || body.f !== filterHash(filters)) throw new CursorFilterMismatchError();
  return body.p;
}
