/**
 * DynamoDB item sizes as DynamoDB bills them, from the wire format
 * (`{"S": "..."}`, `{"N": "..."}`, ...), for the bench's AWS-rule capacity
 * figures (bench/support/dynamo-proxy.ts). The rules (AWS Developer Guide, "Item
 * sizes and formats"): an item is the sum of its attribute names (UTF-8
 * bytes) and values; a string is its UTF-8 length, a binary its byte length,
 * a number about (significant digits / 2) + 1 bytes, a Boolean or null
 * 1 byte, a list or map 3 bytes plus 1 byte per element plus the elements
 * (and, for a map, the element names), a set the sum of its elements.
 */
export type WireValue = Record<string, unknown>;
export type WireItem = Record<string, WireValue>;

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

function numberSize(text: string): number {
  const mantissa = text
    .replace(/^[-+]/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '');
  const digits = mantissa.replace(/^0+/, '').replace(/0+$/, '').length;
  return Math.ceil(Math.max(1, digits) / 2) + 1;
}

export function valueSize(value: WireValue): number {
  if ('S' in value) return utf8(String(value.S));
  if ('N' in value) return numberSize(String(value.N));
  if ('B' in value) return Buffer.from(String(value.B), 'base64').length;
  if ('BOOL' in value || 'NULL' in value) return 1;
  if ('SS' in value) return (value.SS as string[]).reduce((sum, s) => sum + utf8(s), 0);
  if ('NS' in value) return (value.NS as string[]).reduce((sum, n) => sum + numberSize(n), 0);
  if ('BS' in value) return (value.BS as string[]).reduce((sum, b) => sum + Buffer.from(b, 'base64').length, 0);
  if ('L' in value) return 3 + (value.L as WireValue[]).reduce((sum, v) => sum + 1 + valueSize(v), 0);
  if ('M' in value) return 3 + Object.entries(value.M as WireItem).reduce((sum, [k, v]) => sum + utf8(k) + 1 + valueSize(v), 0);
  return 0;
}

export function itemSize(item: WireItem | undefined): number {
  if (!item) return 0;
  return Object.entries(item).reduce((sum, [name, value]) => sum + utf8(name) + valueSize(value), 0);
}

/** Write units of one non-transactional write of an item this size: 1 per KB, rounded up, at least 1. */
export const writeUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));

/** Read units of reading this many bytes: 1 per 4 KB, rounded up (at least 1), half when eventually consistent. */
export const readUnits = (bytes: number, consistent: boolean): number => Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);
