import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { Json } from './api.js';

/** One request the receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A receiver on 127.0.0.1: every request to `/<name>` is recorded under
 * `name` and answered by the next status of `answers[name]` (the last one
 * repeats; 200 when none is set). A status of 0 never answers: the request
 * hangs until its sender gives up (or the receiver stops).
 */
export class Receiver {
  readonly received = new Map<string, Received[]>();
  readonly answers = new Map<string, number[]>();
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const name = (request.url ?? '/').slice(1);
        const list = this.received.get(name) ?? [];
        list.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
        this.received.set(name, list);
        const answers = this.answers.get(name) ?? [200];
        const status = answers.length > 1 ? answers.shift()! : answers[0]!;
        if (status === 0) return;
        response.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  of(name: string): Received[] {
    return this.received.get(name) ?? [];
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** Verifies a request as a receiver would (Standard Webhooks), answering its parsed body. */
export function verified(secret: string, request: Received): Json {
  const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(request.headers[name] ?? '')]));
  return new Webhook(secret).verify(request.body, headers) as Json;
}
