// yazl (3.x) keeps every entry of a zip in one list until the end, where it writes the central directory from it, and
// looks for the next entry to write from the start of that list at every step: a zip of n entries costs n^2 steps (a
// minute of CPU at 100,000 files) and about 700 bytes of memory per entry. compactEntryList keeps the list short while
// the zip is written: entries already written are taken out (when yazl starts the next file, every entry before it is
// written), each turned at once into its central directory record (final once its bytes are written). The records
// go, in blocks of 1,000, to a temp file that is removed from its folder as soon as it is open (nothing is left behind
// whatever happens to the process), so the zip's memory does not grow with its entries: before the end, one stand-in
// per written entry goes back into yazl's list (8 bytes each), and the first stand-in marks where the central
// directory starts; assemble() then puts the file's records at that place in yazl's output. Reaches into yazl's
// internals (`entries`, `state`, `outputStreamCursor`, `getCentralDirectoryRecord`): if they are not there, it does
// nothing and yazl keeps its whole list.
import { randomBytes } from 'node:crypto';
import { mkdir, open, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type yazl from 'yazl';

/** What compactEntryList touches of yazl's entries. */
interface YazlEntry {
  state: number;
  getCentralDirectoryRecord(): Buffer;
}

/** yazl's Entry.FILE_DATA_DONE (not exported). */
const WRITTEN = 3;
const BLOCK = 1000;
const EMPTY = Buffer.alloc(0);
/** Stands in for a written entry whose record is in the temp file (or in the last block, not yet written there). */
const SET_ASIDE: YazlEntry = { state: WRITTEN, getCentralDirectoryRecord: () => EMPTY };
const READ_SIZE = 64 * 1024;

export interface EntryList {
  /** Takes the entries written so far out of yazl's list (call when yazl starts an entry). */
  setAside(): void;
  /** Puts stand-ins for them back (call before zip.end()). */
  restore(): void;
  /** yazl's output with the set-aside records where the central directory starts. Closes the temp file at its end. */
  assemble(zipped: Readable): AsyncGenerator<Buffer>;
  /** Closes the temp file (a zip given up before its end). */
  close(): void;
}

/** `tmpDir`: where the records' temp file is made (created if missing), DATA_DIR/tmp. */
export function compactEntryList(zip: yazl.ZipFile, tmpDir: string): EntryList {
  const internal = zip as unknown as { entries?: YazlEntry[]; outputStreamCursor?: number };
  const usable = Array.isArray(internal.entries) && typeof internal.outputStreamCursor === 'number';
  /** Records not yet in the temp file. */
  let records: Buffer[] = [];
  let asideCount = 0;
  /** Bytes of all set-aside records (in the file and in `records`). */
  let recordBytes = 0;
  let fileBytes = 0;
  let restored = false;
  let closed = false;
  /** Where the central directory starts in yazl's output, once yazl has begun writing it. */
  let directoryStart: number | undefined;
  let file: Promise<FileHandle> | undefined;
  /** The writes to the temp file, one after another; the first failure is kept for assemble(). */
  let writing: Promise<void> = Promise.resolve();

  const openFile = async () => {
    await mkdir(tmpDir, { recursive: true });
    const name = path.join(tmpDir, `zip-${randomBytes(12).toString('hex')}.records`);
    const handle = await open(name, 'w+', 0o600);
    await unlink(name).catch(async (err: unknown) => {
      await handle.close();
      throw err;
    });
    return handle;
  };
  const flush = () => {
    // Given up (close()): nothing more is written, and no file is opened that nothing would close.
    if (records.length === 0 || closed) return;
    const block = Buffer.concat(records);
    records = [];
    file ??= openFile();
    const at = fileBytes;
    fileBytes += block.length;
    const handle = file;
    writing = writing.then(async () => {
      await (await handle).write(block, 0, block.length, at);
    });
    // Kept for assemble(); not an unhandled rejection in the meantime.
    writing.catch(() => undefined);
  };
  /** The first stand-in: the central directory starts here, and the set-aside records take its first bytes. */
  const directoryHead: YazlEntry = {
    state: WRITTEN,
    getCentralDirectoryRecord() {
      directoryStart = internal.outputStreamCursor!;
      internal.outputStreamCursor! += recordBytes;
      return EMPTY;
    },
  };
  const close = () => {
    if (closed) return;
    closed = true;
    void file?.then((h) => h.close()).catch(() => undefined);
  };

  return {
    setAside() {
      if (!usable || restored || closed) return;
      const entries = internal.entries!;
      // The entry being started is the first one yazl has not finished; every one before it is written.
      const current = entries.findIndex((e) => e.state < WRITTEN);
      if (current <= 0) return;
      for (const entry of entries.splice(0, current)) {
        const record = entry.getCentralDirectoryRecord();
        records.push(record);
        recordBytes += record.length;
        asideCount += 1;
        if (records.length === BLOCK) flush();
      }
    },
    restore() {
      if (!usable || restored) return;
      restored = true;
      if (asideCount === 0) return;
      const standIns: YazlEntry[] = new Array<YazlEntry>(asideCount).fill(SET_ASIDE);
      standIns[0] = directoryHead;
      internal.entries = standIns.concat(internal.entries!);
    },
    async *assemble(zipped) {
      try {
        let sent = 0;
        /** yazl's output after the place of the set-aside records: the rest of the directory and its end. */
        const tail: Buffer[] = [];
        for await (const chunk of zipped as AsyncIterable<Buffer>) {
          if (directoryStart === undefined || sent + chunk.length <= directoryStart) {
            sent += chunk.length;
            yield chunk;
            continue;
          }
          const head = Math.max(0, directoryStart - sent);
          if (head > 0) yield chunk.subarray(0, head);
          sent += head;
          tail.push(chunk.subarray(head));
        }
        if (directoryStart !== undefined) {
          await writing;
          if (file) {
            const handle = await file;
            for (let at = 0; at < fileBytes;) {
              const { bytesRead, buffer } = await handle.read(Buffer.allocUnsafe(READ_SIZE), 0, READ_SIZE, at);
              if (bytesRead === 0) throw new Error('the zip records temp file ended early');
              at += bytesRead;
              yield buffer.subarray(0, bytesRead);
            }
          }
          yield* records;
        }
        yield* tail;
      } finally {
        close();
      }
    },
    close,
  };
}
