// chute export: the instance's records as one JSON document (services/cli-export.ts), to standard output or a file.
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { exportInstance } from '../../services/cli-export.js';
import { CliError, openCliContext } from '../context.js';

export const EXPORT_HELP = `Usage: chute export [--output <file>]

Writes the records of every account, folder, file, tag and short URL, and the server settings, as one JSON
document: to standard output, or to <file> (written whole or not at all). Credentials stay out (password
hashes, API tokens, TOTP secrets, sessions); file bytes stay in storage (back them up separately).
`;

export async function exportCommand(argv: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { output: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    throw new CliError(`${(err as Error).message}\n\n${EXPORT_HELP}`, 2);
  }
  if (values.help) {
    process.stdout.write(EXPORT_HELP);
    return;
  }
  const cli = await openCliContext({ storage: false });
  try {
    if (!values.output || values.output === '-') {
      await exportInstance(cli.ctx, process.stdout);
      return;
    }
    // A temp file renamed into place: an interrupted export never leaves a truncated document under the name.
    const temp = `${values.output}.${process.pid}.tmp`;
    const file = createWriteStream(temp, { flags: 'wx' });
    try {
      const counts = await exportInstance(cli.ctx, file);
      file.end();
      await finished(file);
      await rename(temp, values.output);
      const summary = Object.entries(counts).map(([table, n]) => `${n} ${table}`);
      process.stderr.write(`wrote ${values.output}: ${summary.join(', ')}\n`);
    } catch (err) {
      file.destroy();
      await rm(temp, { force: true });
      throw err;
    }
  } finally {
    await cli.close();
  }
}
