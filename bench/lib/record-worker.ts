// The worker thread of bench/record-sink.ts's `record-worker` mode: Chute's files row written on a connection of its
// own, by group commit on this thread, one message per upload (what writing the upload records off the main thread
// would save it).
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../../src/db/index.js';
import type { FileRow } from '../../src/db/schema/tables.js';
import { indexWaitingFiles, SEARCH_INDEX_INTERVAL_MS } from '../../src/services/lists/files.js';
import { insertFileRow } from '../../src/services/files/records.js';

const { databaseFile } = workerData as { databaseFile: string };
const database = openDatabase({ sqlitePath: databaseFile });
database.keepTemporaryDataInMemory?.();
const commits = database.groupCommit();
setInterval(() => void indexWaitingFiles({ db: database.db, commits }), SEARCH_INDEX_INTERVAL_MS).unref();

parentPort!.on('message', ({ id, row }: { id: number; row: FileRow }) => {
  commits
    .run((trx) => insertFileRow(trx, database.engine, row))
    .then(
      () => parentPort!.postMessage({ id }),
      (err: unknown) => parentPort!.postMessage({ id, error: String(err) }),
    );
});
