import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { executionSetting, type FunctionEnvironment, FunctionError, FunctionTimeout } from './bundle-function.js';
import type { InvocationSink, StreamPrelude } from './bundle-http.js';

type LambdaErrorBody = { errorType: string; errorMessage: string; trace?: string[] };
type FromWorker =
  | { type: 'ready'; streaming: boolean }
  | { type: 'head'; id: string; prelude: StreamPrelude }
  | { type: 'chunk'; id: string; data: Uint8Array }
  | { type: 'end'; id: string }
  | { type: 'result'; id: string; payload?: string }
  | { type: 'error'; id: string; error: LambdaErrorBody };

interface Pending {
  id: string;
  sink?: InvocationSink;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** Plain JavaScript, so Node loads it as it is under tsx, vitest or plain node. */
const WORKER_FILE = new URL('./bundle-worker.mjs', import.meta.url);
/** Lambda's limit on the init phase. */
const INIT_TIMEOUT_SECONDS = 10;

const toFunctionError = (body: LambdaErrorBody) => new FunctionError(body.errorType, body.errorMessage, body.trace);

function forwardLines(stream: Readable, emit: (line: string) => void): void {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (text: string) => {
    const lines = (rest + text).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) emit(line);
  });
  stream.on('end', () => rest && emit(rest));
}

/** One execution environment: a worker thread serving one invocation at a time; ended for good by a timeout or a crash. */
export class ExecutionEnvironment {
  /** Settles once the module is loaded: whether its handler streams, or the init error. */
  readonly ready: Promise<boolean>;
  dead = false;
  private readonly worker: Worker;
  private pending?: Pending;
  private initDone?: (error?: Error, streaming?: boolean) => void;

  constructor(
    private readonly fn: FunctionEnvironment,
    private readonly options: { accountId: string; onLog(line: string): void; onExit(environment: ExecutionEnvironment): void },
  ) {
    const { env, context } = executionSetting(fn, options.accountId);
    const sourceMaps = /(^|\s)--enable-source-maps\b/.test(fn.environment.NODE_OPTIONS ?? '');
    this.worker = new Worker(WORKER_FILE, {
      name: fn.functionName,
      env,
      // The parent's loaders (tsx, vitest) have no place in a Lambda environment.
      execArgv: [],
      stdout: true,
      stderr: true,
      // As the runtime sizes the heap: memory less a tenth for the young generation.
      resourceLimits: { maxOldGenerationSizeMb: Math.max(32, fn.memoryMb - Math.floor(fn.memoryMb / 10)) },
      workerData: { taskRoot: fn.assetDir, handler: fn.handler, context, sourceMaps },
    });
    forwardLines(this.worker.stdout, options.onLog);
    forwardLines(this.worker.stderr, options.onLog);
    this.ready = new Promise<boolean>((resolve, reject) => {
      const timer = setTimeout(
        () => this.fail(new FunctionTimeout(`Init timed out after ${INIT_TIMEOUT_SECONDS.toFixed(2)} seconds`)),
        INIT_TIMEOUT_SECONDS * 1000,
      );
      this.initDone = (error, streaming) => {
        clearTimeout(timer);
        this.initDone = undefined;
        if (error) reject(error);
        else resolve(streaming === true);
      };
    });
    this.ready.catch(() => undefined);
    this.worker.on('message', (message: FromWorker) => this.onMessage(message));
    // An uncaught exception (at init or later) ends the environment; the runtime logs it before it exits.
    this.worker.on('error', (error: unknown) => {
      const failure =
        error instanceof Error ? new FunctionError(error.name, error.message, error.stack?.split('\n')) : new FunctionError(typeof error, String(error));
      const body = { errorType: failure.errorType, errorMessage: failure.errorMessage, stack: failure.trace };
      options.onLog(`${new Date().toISOString()}\t${this.pending?.id ?? 'undefined'}\tERROR\tUncaught Exception \t${JSON.stringify(body)}`);
      this.fail(failure);
    });
    this.worker.on('exit', (code) => {
      this.fail(new FunctionError('Runtime.ExitError', `Runtime exited with error: exit status ${code}`));
      options.onExit(this);
    });
  }

  /** The handler's result (JSON, as Lambda passes it); a streaming handler writes to `sink`. A client gone (`signal`) ends the stream in the function. */
  async invoke(event: unknown, sink?: InvocationSink, signal?: AbortSignal): Promise<unknown> {
    await this.ready;
    if (this.dead) throw new FunctionError('Runtime.ExitError', 'The execution environment has ended.');
    const id = randomUUID();
    const seconds = this.fn.timeoutSeconds;
    const abort = () => this.worker.postMessage({ type: 'abort', id });
    signal?.addEventListener('abort', abort, { once: true });
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        const message = `Task timed out after ${seconds.toFixed(2)} seconds`;
        this.options.onLog(`${new Date().toISOString()} ${id} ${message}`);
        this.fail(new FunctionTimeout(message));
      }, seconds * 1000);
      this.pending = { id, sink, resolve, reject, timer };
      this.worker.postMessage({ type: 'invoke', id, event: JSON.stringify(event ?? null), deadline: Date.now() + seconds * 1000 });
    }).finally(() => signal?.removeEventListener('abort', abort));
  }

  async terminate(): Promise<void> {
    this.dead = true;
    await this.worker.terminate();
  }

  private onMessage(message: FromWorker): void {
    if (message.type === 'ready') {
      this.initDone?.(undefined, message.streaming);
      return;
    }
    const pending = this.pending;
    if (message.id !== pending?.id) return;
    if (message.type === 'head') pending.sink?.head(message.prelude);
    else if (message.type === 'end') pending.sink?.end();
    else if (message.type === 'chunk') {
      void Promise.resolve(pending.sink?.chunk(message.data)).then(() => this.worker.postMessage({ type: 'ack', id: message.id }));
    } else {
      clearTimeout(pending.timer);
      this.pending = undefined;
      if (message.type === 'result') pending.resolve(message.payload === undefined ? null : JSON.parse(message.payload));
      else pending.reject(toFunctionError(message.error));
    }
  }

  /** Ends the environment for good; what was under way fails with `error`. */
  private fail(error: FunctionError): void {
    this.dead = true;
    void this.worker.terminate();
    this.initDone?.(error);
    const pending = this.pending;
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending = undefined;
    pending.reject(error);
  }
}
