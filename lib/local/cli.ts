import { createServer } from 'node:net';
import { LocalStackError } from './emulators.js';
import { clearLocalStackState, writeLocalStackState } from './state.js';

export async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new LocalStackError(
          error.code === 'EADDRINUSE'
            ? `Port ${port} is already in use; stop whatever holds it or start on another port with PORT=<port> npm start.`
            : `Cannot listen on port ${port}: ${error.message}`,
        ),
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

/** `PORT` (default 3000), checked free before anything starts. */
export async function portFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new LocalStackError(`PORT must be a port number, not ${env.PORT}.`);
  await assertPortFree(port);
  return port;
}

/**
 * Says where the running stack is (.local-stack.json, for the operator CLI)
 * and stops it on SIGINT or SIGTERM, once.
 */
export function serveUntilSignal(stack: { url: string; dynamodbEndpoint: string; sqsEndpoint: string; tableName: string; stop(): Promise<void> }): void {
  writeLocalStackState({
    pid: process.pid,
    url: stack.url,
    dynamodbEndpoint: stack.dynamodbEndpoint,
    sqsEndpoint: stack.sqsEndpoint,
    tableName: stack.tableName,
  });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping the local stack…`);
    clearLocalStackState();
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** A start that failed: its reason (a LocalStackError's message alone), exit 1. */
export function failStart(error: unknown): never {
  clearLocalStackState();
  console.error(error instanceof LocalStackError ? error.message : error);
  process.exit(1);
}
