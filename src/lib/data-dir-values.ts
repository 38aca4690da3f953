// Small values an instance generates once and keeps in DATA_DIR (the secret, the instance id), written atomically so
// that two processes starting at once agree on one value.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Reads DATA_DIR/<name>, or writes `generate()` there first (temp file, fsync, rename) when it is absent or invalid. */
export function loadOrCreateDataDirValue(
  dataDir: string,
  name: string,
  generate: () => string,
  isValid: (value: string) => boolean,
): string {
  const file = path.join(dataDir, name);
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (isValid(existing)) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${generate()}\n`, { mode: 0o600, flush: true });
  renameSync(temp, file);
  return readFileSync(file, 'utf8').trim();
}
