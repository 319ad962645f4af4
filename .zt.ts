import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import * as z from 'zod/v4/mini';
export const S = z.looseObject({ a: z.string() });
console.log(typeof Client, S.parse({ a: 'x' }));
