// Request counts and latencies by route for /metrics (lib/process-metrics.ts). Every route gets its own onResponse
// hook, bound once to its route pattern (never the raw URL, whose names and codes would make a series per file):
// a request then costs two map look-ups and a few additions to plain numbers, in a callback hook (no promise).
// Requests that match no route (the 404 handler) are not counted.
//
// Bytes of stored files are counted here too, once their answer has been written whole: http/serving/send-bytes.ts marks
// the reply with the length it sends.
import type { FastifyReply, onResponseHookHandler } from 'fastify';
import type { ProcessMetrics } from '../lib/process-metrics.js';
import type { App } from './types.js';

const STORED_BYTES = Symbol('chute.storedBytes');

type MarkedReply = FastifyReply & { [STORED_BYTES]?: number };

/** Called by http/serving/send-bytes.ts when it answers with `length` bytes of a stored file. */
export function markStoredBytes(reply: FastifyReply, length: number): void {
  (reply as MarkedReply)[STORED_BYTES] = length;
}

const RECORDING = Symbol('chute.requestMetrics');

export function registerRequestMetrics(app: App, metrics: ProcessMetrics): void {
  app.addHook('onRoute', (route) => {
    const existing = route.onResponse === undefined ? [] : [route.onResponse].flat();
    // Fastify's HEAD twin of a GET route comes with the GET's options: it is already recorded.
    if (existing.some((hook) => (hook as { [RECORDING]?: true })[RECORDING])) return;
    const record = metrics.routeRecorder(route.url);
    const hook: onResponseHookHandler = (request, reply, done) => {
      record(request.method, reply.statusCode, reply.elapsedTime);
      const stored = (reply as MarkedReply)[STORED_BYTES];
      // writableFinished: the whole answer reached the socket (an answer cut off midway is not counted).
      if (stored !== undefined && reply.raw.writableFinished) metrics.servedBytes.value += stored;
      done();
    };
    (hook as { [RECORDING]?: true })[RECORDING] = true;
    route.onResponse = [...existing, hook] as typeof route.onResponse;
  });
}
