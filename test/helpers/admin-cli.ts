import { Writable } from 'node:stream';
import { main } from '#admin/cli.js';
import type { Json } from './api.js';

/** Runs the operator CLI in-process against a test stack's table, capturing stdout and stderr (stdout parsed as JSON). */
export async function runAdmin(stack: { dynamodbEndpoint: string; tableName: string }, argv: string[]) {
  let out = '';
  let err = '';
  const sink = (append: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        append(chunk.toString());
        cb();
      },
    });
  const previous = { endpoint: process.env.DYNAMODB_ENDPOINT, table: process.env.TABLE_NAME };
  process.env.DYNAMODB_ENDPOINT = stack.dynamodbEndpoint;
  process.env.TABLE_NAME = stack.tableName;
  try {
    const code = await main(
      argv,
      sink((s) => (out += s)),
      sink((s) => (err += s)),
    );
    return { code, out, err, json: out ? (JSON.parse(out) as Json) : undefined };
  } finally {
    process.env.DYNAMODB_ENDPOINT = previous.endpoint;
    process.env.TABLE_NAME = previous.table;
  }
}
