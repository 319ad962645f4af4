/**
 * One execution environment of BundleRuntime (./bundle-runtime.ts), run in a
 * worker thread: what the Lambda Node.js runtime does around a function's
 * bundle. Plain JavaScript, so Node loads it as it is, whatever runs the
 * parent (tsx, vitest or plain node).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { parentPort, workerData } from 'node:worker_threads';

const { taskRoot, handler: handlerName, context: fixedContext, sourceMaps } = workerData;
// NODE_OPTIONS is read once per process, never by a worker.
if (sourceMaps) process.setSourceMapsEnabled(true);

/** The runtime's own mark on a handler wrapped by streamifyResponse. */
const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const post = (message, transfer) => parentPort.postMessage(message, transfer);
/** The invocation being served: its id (for log lines), its response stream, whether its client left. */
let active;

// Lambda's text log format, so lines read as they do in CloudWatch.
for (const [method, level] of Object.entries({ log: 'INFO', info: 'INFO', warn: 'WARN', error: 'ERROR', debug: 'DEBUG', trace: 'TRACE' })) {
  console[method] = (...args) => process.stdout.write(`${new Date().toISOString()}\t${active?.id ?? 'undefined'}\t${level}\t${format(...args)}\n`);
}

const lambdaError = (errorType, errorMessage) => Object.assign(new Error(errorMessage), { name: errorType });

/** An error the way the runtime reports it; a thrown non-Error by its type. */
const toLambdaError = (error) =>
  error instanceof Error
    ? { errorType: error.name, errorMessage: error.message, trace: error.stack?.split('\n') ?? [] }
    : { errorType: typeof error, errorMessage: String(error), trace: [] };

/** The response stream: bytes go to the parent as written, each acknowledged before the next is taken (back-pressure). */
class ResponseStream extends Writable {
  contentType = 'application/octet-stream';
  prelude;
  #headSent = false;
  #unacknowledged;

  constructor(id) {
    super();
    this.id = id;
  }

  setContentType(type) {
    this.contentType = type;
  }

  acknowledge() {
    const callback = this.#unacknowledged;
    this.#unacknowledged = undefined;
    callback?.();
  }

  // As HttpResponseStream's prelude, status and headers leave with the first byte (or the end).
  #head() {
    if (this.#headSent) return;
    this.#headSent = true;
    post({ type: 'head', id: this.id, prelude: this.prelude ?? { statusCode: 200, headers: { 'Content-Type': this.contentType } } });
  }

  _write(chunk, _encoding, callback) {
    this.#head();
    this.#unacknowledged = callback;
    const data = new Uint8Array(chunk);
    post({ type: 'chunk', id: this.id, data }, [data.buffer]);
  }

  _final(callback) {
    this.#head();
    post({ type: 'end', id: this.id });
    callback();
  }
}

globalThis.awslambda = {
  ...globalThis.awslambda,
  streamifyResponse: (handler) => Object.assign(handler, { [STREAMING]: 'response' }),
  HttpResponseStream: {
    from: (stream, prelude) => Object.assign(stream, { prelude: JSON.parse(JSON.stringify(prelude ?? {})) }),
  },
};

/** `dir/index.handler`: the module is the path up to the first dot of its last segment, the rest names the export. */
async function loadHandler() {
  const dot = handlerName.indexOf('.', handlerName.lastIndexOf('/') + 1);
  if (dot < 0) throw lambdaError('Runtime.MalformedHandlerName', `Bad handler ${handlerName}`);
  const stem = handlerName.slice(0, dot);
  const file = ['.js', '.mjs', '.cjs'].map((extension) => join(taskRoot, stem + extension)).find((path) => existsSync(path));
  if (!file) throw lambdaError('Runtime.ImportModuleError', `Error: Cannot find module '${stem}'`);
  const module = await import(pathToFileURL(file).href).catch((error) => {
    if (error?.code === 'ERR_MODULE_NOT_FOUND') throw lambdaError('Runtime.ImportModuleError', `Error: ${error.message}`);
    if (error instanceof SyntaxError) throw lambdaError('Runtime.UserCodeSyntaxError', `SyntaxError: ${error.message}`);
    throw error;
  });
  const handler = handlerName
    .slice(dot + 1)
    .split('.')
    .reduce((value, key) => value?.[key], module);
  if (typeof handler !== 'function') throw lambdaError('Runtime.HandlerNotFound', `${handlerName} is undefined or not exported`);
  return handler;
}

async function run(invocation, handler, event, context) {
  if (handler[STREAMING] === 'response') {
    const stream = new ResponseStream(invocation.id);
    invocation.stream = stream;
    await handler(event, stream, context);
    if (invocation.aborted) return undefined;
    if (!stream.writableEnded) throw new Error('Response stream is not finished.');
    await finished(stream).catch((error) => {
      if (!invocation.aborted) throw error;
    });
    return undefined;
  }
  // Node 22 still serves callback handlers; an async one answers by its promise.
  if (handler.length < 3) return handler(event, context);
  return new Promise((resolve, reject) => {
    const answer = handler(event, context, (error, value) => (error ? reject(error) : resolve(value)));
    if (typeof answer?.then === 'function') answer.then(resolve, reject);
  });
}

// An init error is left uncaught: the environment ends, and the parent reports the error in order after the logs.
const handler = await loadHandler();
post({ type: 'ready', streaming: handler[STREAMING] === 'response' });

parentPort.on('message', async (message) => {
  if (message.type !== 'invoke') {
    if (active?.id !== message.id) return;
    if (message.type === 'ack') active.stream?.acknowledge();
    if (message.type === 'abort') {
      active.aborted = true;
      active.stream?.destroy();
    }
    return;
  }
  const { id, deadline } = message;
  const invocation = { id };
  active = invocation;
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    ...fixedContext,
    awsRequestId: id,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    const value = await run(invocation, handler, JSON.parse(message.event), context);
    post({ type: 'result', id, payload: JSON.stringify(value) });
  } catch (error) {
    const body = toLambdaError(error);
    console.error('Invoke Error', JSON.stringify(body));
    post({ type: 'error', id, error: body });
  } finally {
    active = undefined;
  }
});
