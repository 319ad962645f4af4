import { createHash } from 'node:crypto';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID_PATTERN.test(value);

export function parse(uuid: string): Uint8Array {
  if (!isUuid(uuid)) throw new TypeError(`Not a UUID: ${uuid}`);
  return Uint8Array.from(Buffer.from(uuid.replace(/-/g, ''), 'hex'));
}

export function stringify(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A name-based UUID (version 5 layout, SHA-1) of `name`: the same id whoever derives it first. */
export function nameBasedUuid(name: string): string {
  const bytes = createHash('sha1').update(name).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return stringify(bytes);
}
