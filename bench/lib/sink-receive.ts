// What the reference sink does with one upload's body (bench/sink.ts; bench/record-sink.ts adds a record to it): write
// it as it arrives to a temp file, and for a durable one fsync the file, rename it and fsync the folder, as Chute must.
import { createWriteStream } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import type http from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

let counter = 0;

/** Stores the request's body under `dir`; returns the bytes written. */
export async function receiveBody(req: http.IncomingMessage, dir: string, durable: boolean): Promise<number> {
  const n = ++counter;
  const temp = path.join(dir, `upload-${n}.part`);
  const out = createWriteStream(temp);
  await pipeline(req, out);
  if (durable) {
    // fsync applies to the file, whichever descriptor asks for it.
    const file = await open(temp, 'r+');
    try {
      await file.sync();
    } finally {
      await file.close();
    }
  }
  await rename(temp, path.join(dir, `upload-${n}.bin`));
  if (durable) {
    const folder = await open(dir, 'r');
    try {
      await folder.sync();
    } finally {
      await folder.close();
    }
  }
  return out.bytesWritten;
}
