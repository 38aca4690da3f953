// The modes of what Chute keeps in DATA_DIR: private to the service account (files 0600, folders 0700), whoever
// created them and with whatever umask. The server makes a data folder that is open to others private at its start
// (server.ts); `chute doctor` only reports one (src/cli/commands/doctor.ts).
import { chmodSync, lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_FOLDER_MODE = 0o700;
/** The bits that let the group or others read, write or enter. */
const OPEN_BITS = 0o077;

export interface OpenEntry {
  path: string;
  /** Its permission bits (e.g. 0o644). */
  mode: number;
}

/** `0o644` -> "0644". */
export function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

/**
 * The data folder and its top-level entries (the database and its -wal/-shm, the secret, the instance id, uploads/,
 * tmp/ ...) that the group or others may use; [] when the folder does not exist. Symbolic links are left out (their
 * modes mean nothing); deeper entries are behind a folder reported here, so a private top level keeps them private.
 */
export function findOpenEntries(dataDir: string): OpenEntry[] {
  const open: OpenEntry[] = [];
  const look = (entry: string): void => {
    let stats;
    try {
      stats = lstatSync(entry);
    } catch (err) {
      // Gone between the listing and the look (a temp file of a running process).
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    if (stats.isSymbolicLink()) return;
    if ((stats.mode & OPEN_BITS) !== 0) open.push({ path: entry, mode: stats.mode & 0o777 });
  };
  try {
    look(dataDir);
    for (const name of readdirSync(dataDir)) look(path.join(dataDir, name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return open;
}

/**
 * Takes the group's and others' bits off each entry (the owner's stay as they are). An entry this process may not
 * change (another owner, a filesystem without modes) stops it: a data folder others can read is not one to run on.
 */
export function makePrivate(entries: OpenEntry[]): void {
  for (const entry of entries) {
    try {
      chmodSync(entry.path, entry.mode & ~OPEN_BITS);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') continue;
      throw new Error(
        `${entry.path} is open to other accounts (mode ${octal(entry.mode)}) and this process cannot make it ` +
          `private (${code ?? (err as Error).message}): run \`chmod go-rwx ${entry.path}\` as its owner, then start again`,
        { cause: err },
      );
    }
  }
}
