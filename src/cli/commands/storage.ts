// chute storage inline --out | --in: moves the bytes of small files between the database and the datasource
// (services/files/inline-storage.ts), with a server running next to it or not.
import { parseArgs } from 'node:util';
import { formatByteSize } from '../../lib/text/sizes.js';
import { INLINE_BATCH, InlineMoveBusyError, moveInlineFiles } from '../../services/files/inline-storage.js';
import { CliError, openCliContext } from '../context.js';

export const STORAGE_HELP = `Usage: chute storage inline --out | --in [--batch <n>]

Moves the bytes of small files between the database and the datasource (docs/storage.md#small-files-in-the-database):

  --out        Every file kept in the database goes to the datasource (the local folder or S3): run it after
               turning inline storage off (UPLOADS_INLINE_MAX=0), or to have every byte in the bucket when moving
               to S3.
  --in         The files at or under UPLOADS_INLINE_MAX that are in the datasource go into the database.
  --batch <n>  Files per transaction (default ${INLINE_BATCH}, at most 5000).

Safe next to a running server: each file's record switches to its new place in the same transaction that stores
or removes the database's copy, in short batches. Interrupted (Ctrl-C, a crash), it goes on where it stopped when
run again, first removing what the interrupted run had written; a second run finds nothing to move. One line per
batch on stderr; exit code 1 when a file had to be left where it was (each is named).
`;

const MAX_BATCH = 5000;

export async function storageCommand(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        out: { type: 'boolean' },
        in: { type: 'boolean' },
        batch: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new CliError(`${(err as Error).message}\n\n${STORAGE_HELP}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(STORAGE_HELP);
    return;
  }
  if (positionals.length !== 1 || positionals[0] !== 'inline')
    throw new CliError(`expected \`storage inline --out\` or \`storage inline --in\`\n\n${STORAGE_HELP}`, 2);
  if (values.out === values.in)
    throw new CliError(`give one of --out and --in${values.out ? ', not both' : ''}\n\n${STORAGE_HELP}`, 2);
  const batchSize = values.batch === undefined ? INLINE_BATCH : Number(values.batch);
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > MAX_BATCH)
    throw new CliError(`--batch ${values.batch}: expected a whole number from 1 to ${MAX_BATCH}\n\n${STORAGE_HELP}`, 2);
  const direction = values.out ? 'out' : 'in';

  // Its pending marks are its own: a `chute import` starting meanwhile must not sweep the bytes of a batch in flight.
  const cli = await openCliContext({ storage: true, instanceSuffix: 'inline' });
  try {
    const max = cli.config.UPLOADS_INLINE_MAX;
    if (direction === 'in' && max === 0)
      throw new CliError('UPLOADS_INLINE_MAX is 0 (inline storage is off): no file is small enough to move in');
    const where = direction === 'out' ? 'out of the database' : 'into the database';
    const crashAt = testCrashPoint();
    const result = await moveInlineFiles(cli.ctx, {
      direction,
      batchSize,
      onBatch: ({ batch, moved, skipped, total }) =>
        process.stderr.write(
          `batch ${batch}: moved ${moved} file(s) ${where}${skipped > 0 ? `, left ${skipped}` : ''} (${total} so far)\n`,
        ),
      onSkip: (file, reason) => process.stderr.write(`file ${file.id} (${file.storage_key}) left: ${reason}\n`),
      afterWrites: (batch) => crashAt?.('written', batch),
      afterCommit: (batch) => crashAt?.('committed', batch),
    });
    if (result.swept > 0) process.stderr.write(`removed ${result.swept} object(s) an interrupted run left\n`);
    const limit = direction === 'in' ? ` (UPLOADS_INLINE_MAX ${formatByteSize(max)})` : '';
    process.stdout.write(`moved ${result.moved} of ${result.candidates} file(s) ${where}${limit}\n`);
    if (result.skipped > 0) {
      process.stderr.write(`${result.skipped} file(s) left where they were (named above)\n`);
      process.exitCode = 1;
    }
  } catch (err) {
    if (err instanceof InlineMoveBusyError) throw new CliError(`${err.message}: wait for it to end`);
    throw err;
  } finally {
    await cli.close();
  }
}

/**
 * For the crash tests only: CHUTE_TEST_KILL_AT=<written|committed>:<batch> kills the command (SIGKILL) at that point
 * of that batch, as a power cut would.
 */
function testCrashPoint(): ((point: string, batch: number) => void) | undefined {
  const wanted = process.env.CHUTE_TEST_KILL_AT;
  if (!wanted) return undefined;
  return (point, batch) => {
    if (wanted === `${point}:${batch}`) process.kill(process.pid, 'SIGKILL');
  };
}
