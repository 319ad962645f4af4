import { createHash } from 'node:crypto';
import { CursorFilterMismatchError, CursorInvalidError } from '../errors.js';

/**
 * Opaque pagination cursors. A cursor records which list (scope) and which
 * filters it was issued for, so a cursor reused under other filters answers
 * 400 cursor_filter_mismatch instead of silently paging something else, and
 * carries a checksum so that anything the service did not issue is rejected.
 * The position inside is checked again by the repository before use.
 */
interface CursorBody {
  s: string;
  f: string;
  p: Record<string, unknown>;
}

const checksum = (payload: string): string => createHash('sha256').update(`cursor:v1:${payload}`).digest('base64url').slice(0, 16);

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

export function encodeCursor(scope: string, filters: Record<string, unknown>, position: Record<string, unknown>): string {
  const payload = Buffer.from(JSON.stringify({ s: scope, f: filterHash(filters), p: position } satisfies CursorBody)).toString('base64url');
  return `${payload}.${checksum(payload)}`;
}

export function decodeCursor(cursor: string, scope: string, filters: Record<string, unknown>): Record<string, unknown> {
  const [payload, sum, extra] = cursor.split('.');
  if (!payload || !sum || extra !== undefined || checksum(payload) !== sum) throw new CursorInvalidError();
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
