// yazl (3.x) keeps every entry of a zip in one list until the end, where it writes the central directory from it, and
// looks for the next entry to write from the start of that list at every step: a zip of n entries costs n^2 steps (a
// minute of CPU at 100,000 files) and about 700 bytes of memory per entry. compactEntryList keeps the list short while
// the zip is written: entries already written are taken out (when yazl starts the next file, every entry before it is
// written), each turned at once into its central directory record (final once its bytes are written), kept in
// blocks of 1,000; before the end the records are put back in their order, one stand-in per entry. So the zip costs n
// steps and about 110 bytes per entry (its record, which the zip format wants at the end). Reaches into yazl's
// internals (`entries`, `state`, `doFileDataPump`, `getCentralDirectoryRecord`): if they are not there, it does nothing.
import type yazl from 'yazl';

/** What compactEntryList touches of yazl's entries. */
interface YazlEntry {
  state: number;
  doFileDataPump?: (() => void) | null;
  getCentralDirectoryRecord(): Buffer;
}

/** yazl's Entry.FILE_DATA_DONE (not exported). */
const WRITTEN = 3;
const BLOCK = 1000;
const EMPTY = Buffer.alloc(0);
/** Stands in for a written entry whose record is part of an earlier stand-in's block. */
const IN_BLOCK: YazlEntry = { state: WRITTEN, getCentralDirectoryRecord: () => EMPTY };

export interface EntryList {
  /** Takes the entries written so far out of yazl's list (call when yazl starts an entry). */
  setAside(): void;
  /** Puts them back, as their records (call before zip.end()). */
  restore(): void;
}

export function compactEntryList(zip: yazl.ZipFile): EntryList {
  const internal = zip as unknown as { entries?: YazlEntry[] };
  const usable = Array.isArray(internal.entries) && typeof Reflect.get(zip, 'outputStreamCursor') === 'number';
  const blocks: YazlEntry[] = [];
  let records: Buffer[] = [];
  let restored = false;
  const closeBlock = () => {
    if (records.length === 0) return;
    const block = Buffer.concat(records);
    blocks.push({ state: WRITTEN, getCentralDirectoryRecord: () => block });
    for (let i = 1; i < records.length; i++) blocks.push(IN_BLOCK);
    records = [];
  };
  return {
    setAside() {
      if (!usable || restored) return;
      const entries = internal.entries!;
      // The entry being started is the first one yazl has not finished; every one before it is written.
      const current = entries.findIndex((e) => e.state < WRITTEN);
      if (current <= 0) return;
      for (const entry of entries.splice(0, current)) {
        records.push(entry.getCentralDirectoryRecord());
        if (records.length === BLOCK) closeBlock();
      }
    },
    restore() {
      if (!usable || restored) return;
      restored = true;
      closeBlock();
      internal.entries = blocks.concat(internal.entries!);
    },
  };
}
