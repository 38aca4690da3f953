// Files written straight into the database through Chute's own data layer (src/db), in large batches, for the
// benchmarks at scale (bench/writes.ts, bench/migrations.ts): the rows of bench/listing.ts's seed, spread over owners.
import type { Kysely } from 'kysely';
import { indexNewFiles } from '../../src/db/schema/search-index.js';
import type { Database } from '../../src/db/schema/tables.js';
import { fileRow } from '../listing.js';

const BATCH = 1_000;
const BATCHES_PER_TRANSACTION = 10;

/**
 * Adds files numbered [from, to) (file n belongs to owners[n % owners.length]; 1 in 50 in `folderId`), 10,000 to a
 * transaction, and calls `progress` after every 100,000.
 */
export async function seedFiles(
  db: Kysely<Database>,
  options: { owners: string[]; folderId: string; from: number; to: number; progress?: (seeded: number) => void },
): Promise<void> {
  let n = options.from;
  while (n < options.to) {
    await db.transaction().execute(async (trx) => {
      for (let b = 0; b < BATCHES_PER_TRANSACTION && n < options.to; b++) {
        const count = Math.min(BATCH, options.to - n);
        const first = n;
        const rows = Array.from({ length: count }, (_, i) =>
          fileRow(options.owners[(first + i) % options.owners.length]!, options.folderId, first + i),
        );
        await trx.insertInto('files').values(rows).execute();
        await indexNewFiles(trx);
        n += count;
      }
    });
    if (n % 100_000 === 0) options.progress?.(n);
  }
}
