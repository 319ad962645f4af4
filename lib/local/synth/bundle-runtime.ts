import type { ServerResponse } from 'node:http';
import { ExecutionEnvironment } from './bundle-environment.js';
import type { FunctionEnvironment } from './bundle-function.js';
import { type InvocationSink, responseSink, writeBufferedResult, writeFailure } from './bundle-http.js';

export { type FunctionEnvironment, FunctionError, FunctionTimeout } from './bundle-function.js';

export interface BundleRuntimeOptions {
  /** How many invocations run at once, one per environment; more wait for one to be free. Default 10. */
  maxEnvironments?: number;
  /** Every line the function writes, prefixed with its name. Default: the parent's stdout. */
  onLog?: (line: string) => void;
  /** The account in `invokedFunctionArn`. Default 000000000000. */
  accountId?: string;
}

interface Waiter {
  resolve(environment: ExecutionEnvironment): void;
  reject(error: Error): void;
}

/**
 * Runs a function's bundle (its cdk.out asset) as the Lambda Node.js runtime
 * does: each execution environment a worker thread with the function's
 * environment only, serving one invocation at a time and kept between
 * invocations (module scope survives), ended by a timeout or a crash.
 * `stop()` ends them all; until then they keep the process alive.
 */
export class BundleRuntime {
  private readonly environments = new Set<ExecutionEnvironment>();
  private readonly idle: ExecutionEnvironment[] = [];
  private readonly waiting: Waiter[] = [];
  private readonly maxEnvironments: number;
  private readonly onLog: (line: string) => void;
  private readonly accountId: string;
  private streamingHandler?: boolean;
  private stopped = false;

  constructor(
    private readonly fn: FunctionEnvironment,
    options: BundleRuntimeOptions = {},
  ) {
    this.maxEnvironments = options.maxEnvironments ?? 10;
    this.onLog = options.onLog ?? ((line) => process.stdout.write(`${line}\n`));
    this.accountId = options.accountId ?? '000000000000';
  }

  /** Whether the handler streams (streamifyResponse); undefined until an environment has loaded it. */
  get streaming(): boolean | undefined {
    return this.streamingHandler;
  }

  /**
   * A buffered invocation: the handler's result, or a FunctionError as
   * Lambda reports it (a FunctionTimeout past the timeout). A streaming
   * handler answers what it wrote, as text.
   */
  async invoke(event: unknown): Promise<unknown> {
    const chunks: Uint8Array[] = [];
    const sink: InvocationSink = { head: () => undefined, chunk: (data) => void chunks.push(data), end: () => undefined };
    const value = await this.run(event, sink);
    return this.streamingHandler ? Buffer.concat(chunks).toString('utf8') : value;
  }

  /**
   * An invocation through a function URL with RESPONSE_STREAM, answered on
   * `res` as the bytes come. A client that leaves ends the function's
   * stream. A failure is answered (502, or the stream cut) and then thrown.
   */
  async invokeStreaming(event: unknown, res: ServerResponse): Promise<void> {
    const clientGone = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) clientGone.abort();
    };
    res.on('close', onClose);
    try {
      const value = await this.run(event, responseSink(res), clientGone.signal);
      if (!this.streamingHandler) writeBufferedResult(res, value);
    } catch (error) {
      writeFailure(res);
      throw error;
    } finally {
      res.off('close', onClose);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.stoppedError());
    await Promise.all([...this.environments].map((environment) => environment.terminate()));
    this.environments.clear();
    this.idle.length = 0;
  }

  private async run(event: unknown, sink: InvocationSink, signal?: AbortSignal): Promise<unknown> {
    const environment = await this.acquire();
    try {
      this.streamingHandler = await environment.ready;
      return await environment.invoke(event, sink, signal);
    } finally {
      this.release(environment);
    }
  }

  private acquire(): Promise<ExecutionEnvironment> {
    if (this.stopped) return Promise.reject(this.stoppedError());
    const idle = this.idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.environments.size < this.maxEnvironments) return Promise.resolve(this.start());
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private release(environment: ExecutionEnvironment): void {
    if (environment.dead) this.forget(environment);
    if (this.stopped) return;
    const next = this.waiting.shift();
    if (next) next.resolve(environment.dead ? this.start() : environment);
    else if (!environment.dead) this.idle.push(environment);
  }

  private start(): ExecutionEnvironment {
    const environment = new ExecutionEnvironment(this.fn, {
      accountId: this.accountId,
      onLog: (line) => this.onLog(`[${this.fn.functionName}] ${line}`),
      onExit: (gone) => this.forget(gone),
    });
    this.environments.add(environment);
    return environment;
  }

  private forget(environment: ExecutionEnvironment): void {
    this.environments.delete(environment);
    const at = this.idle.indexOf(environment);
    if (at >= 0) this.idle.splice(at, 1);
  }

  private stoppedError(): Error {
    return new Error(`${this.fn.functionName}: the runtime is stopped.`);
  }
}
