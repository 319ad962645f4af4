import { randomBytes } from 'node:crypto';

/** Public ids are a type prefix and 128 random bits, base64url. */
const prefixed = (prefix: string) => (): string => `${prefix}_${randomBytes(16).toString('base64url')}`;

export const newTokenId = prefixed('tok');
