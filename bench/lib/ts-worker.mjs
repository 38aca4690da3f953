// Starts a worker thread on a TypeScript module (workerData.entry, a file URL) under tsx, as the bench's servers run:
// a worker does not take the main thread's module hooks.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
