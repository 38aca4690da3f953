// The sink of bench/sink.ts (POST /fsync's work: the body to a temp file, fsync, rename, fsync of the folder) plus one
// durable database record per upload, committed through Chute's own database layer: SQLite opened as the server opens
// it (db/sqlite/connection.ts), group commit with the log flushed off the event loop (db/sqlite/commits.ts), and one of these records:
//   record  Chute's files row, by the statement an upload inserts it with (services/files/records.ts insertFileRow), into a
//           database Chute made (its indexes, counters and search-index triggers); the search queue indexed as the
//           server does it (services/lists/files.ts indexWaitingFiles, every SEARCH_INDEX_INTERVAL_MS)
//   record-worker  the same row written on a worker thread with a connection of its own (bench/lib/record-worker.ts:
//           group commit on that thread, one message per upload)
//   record-blob  Chute's files row and the upload's bytes in one commit (a table of its own), no file written
//   bare    a row of four columns in a table with a primary key alone
// No multipart parsing, authentication, quota or pending mark: what bytes and a record alone cost (bench/record-cost.ts).
//   node --import tsx bench/record-sink.ts <port> <folder> <database file> <user id> record|record-worker|record-blob|bare
import http from 'node:http';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { openDatabase } from '../src/db/index.js';
import { precompiledWrite } from '../src/db/precompiled.js';
import type { Db, FileRow } from '../src/db/schema/tables.js';
import { newTimeOrderedId, randomLowercase } from '../src/lib/security/ids.js';
import { indexWaitingFiles, SEARCH_INDEX_INTERVAL_MS } from '../src/services/lists/files.js';
import { insertFileRow } from '../src/services/files/records.js';
import { fileRowOf } from '../test/support/file-rows.js';
import { receiveBody } from './lib/sink-receive.js';

const [portArg, dir, databaseFile, owner, mode] = process.argv.slice(2);
if (
  !portArg ||
  !dir ||
  !databaseFile ||
  !owner ||
  !mode ||
  !['record', 'record-worker', 'record-blob', 'bare'].includes(mode)
) {
  console.error(
    'usage: record-sink.ts <port> <folder> <database file> <user id> record|record-worker|record-blob|bare',
  );
  process.exit(2);
}
const userId: string = owner;

const database = openDatabase({ sqlitePath: databaseFile });
database.keepTemporaryDataInMemory?.();
const commits = database.groupCommit();

interface BareRow extends Record<string, unknown> {
  id: string;
  name: string;
  size: number;
  created_at: number;
}
const BARE_TABLE = 'bench_bare_rows';
const insertBareRow = precompiledWrite<BareRow>(['id', 'name', 'size', 'created_at'], (db, row) =>
  (db as unknown as Db).insertInto(BARE_TABLE as 'files').values(row as never),
);

if (mode === 'bare') {
  await sql`create table if not exists ${sql.id(BARE_TABLE)} (id text primary key, name text not null, size integer not null, created_at integer not null)`.execute(
    database.db,
  );
} else if (mode === 'record' || mode === 'record-blob') {
  if (mode === 'record-blob') {
    await sql`create table if not exists bench_blobs (storage_key text primary key, bytes blob not null)`.execute(
      database.db,
    );
  }
  const ctx = { db: database.db, commits };
  setInterval(() => void indexWaitingFiles(ctx), SEARCH_INDEX_INTERVAL_MS).unref();
}

const worker =
  mode === 'record-worker'
    ? new Worker(new URL('./lib/ts-worker.mjs', import.meta.url), {
        workerData: { entry: new URL('./lib/record-worker.ts', import.meta.url).href, databaseFile },
      })
    : undefined;
const onWorkerWaiting = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
let nextMessage = 0;
worker?.on('message', ({ id, error }: { id: number; error?: string }) => {
  const waiting = onWorkerWaiting.get(id)!;
  onWorkerWaiting.delete(id);
  if (error === undefined) waiting.resolve();
  else waiting.reject(new Error(error));
});
function onWorker(row: FileRow): Promise<void> {
  const id = nextMessage++;
  return new Promise((resolve, reject) => {
    onWorkerWaiting.set(id, { resolve, reject });
    worker!.postMessage({ id, row });
  });
}

const insertBlob = precompiledWrite<{ storage_key: string; bytes: Buffer }>(['storage_key', 'bytes'], (db, row) =>
  (db as unknown as Db).insertInto('bench_blobs' as 'files').values(row as never),
);

async function record(size: number, blob?: Buffer): Promise<string> {
  const now = Date.now();
  const name = `${randomLowercase(8)}.bin`;
  const id = newTimeOrderedId(now);
  if (mode === 'bare') {
    await commits.run((trx) => insertBareRow(trx, database.engine, { id, name, size, created_at: now }));
    return name;
  }
  // The row a 4 KiB upload records (test/support/file-rows.ts's defaults for the columns it leaves empty).
  const row = {
    private: 0,
    thumbnail_key: null,
    ...fileRowOf({
      id,
      name,
      size,
      user_id: userId,
      type: 'application/octet-stream',
      created_at: now,
      updated_at: now,
    }),
    storage_key: newTimeOrderedId(now),
  };
  if (blob) {
    const bytes = blob;
    await commits.run(async (trx) => {
      await insertFileRow(trx, database.engine, row as FileRow);
      await insertBlob(trx, database.engine, { storage_key: row.storage_key, bytes });
    });
  } else if (worker) await onWorker(row as FileRow);
  else await commits.run((trx) => insertFileRow(trx, database.engine, row as FileRow));
  return name;
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/') {
    res.writeHead(200).end('ok');
    return;
  }
  (mode === 'record-blob'
    ? receiveInMemory(req).then(async (body) => ({ bytes: body.length, name: await record(body.length, body) }))
    : receiveBody(req, dir, true).then(async (bytes) => ({ bytes, name: await record(bytes) }))
  ).then(
    (answer) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)),
    (err: unknown) =>
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(err) })),
  );
});
async function receiveInMemory(req: http.IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}
server.keepAliveTimeout = 72_000;
server.listen(Number(portArg), '127.0.0.1');
const stop = () => {
  server.close();
  server.closeAllConnections();
  void database.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
