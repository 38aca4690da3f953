// SQLite's log flushes (src/db/sqlite/commits.ts WalSync) held back in tests, so that what waits for them can be seen.
import type { WalSync } from '../../src/db/sqlite/commits.js';

/**
 * Holds back the flushes of the server's own log (real fdatasyncs of the real file, each counted as running while held)
 * until release(): what waits for them can be seen.
 */
export function holdFlushes(walSync: WalSync): { release: () => void } {
  const target = walSync as unknown as { flush: () => Promise<void> };
  const original = target.flush;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  target.flush = async function (this: WalSync) {
    await gate;
    return original.call(this);
  };
  return {
    release: () => {
      target.flush = original;
      open();
    },
  };
}
