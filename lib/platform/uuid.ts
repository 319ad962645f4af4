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
