// chute export: the instance's records as one JSON document, the same as GET /api/server/export gives
// (services/exports/instance-export.ts: Zipline v4's export format), to standard output or a file.
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import type { AppContext } from '../../context.js';
import { serverExport, serverExportCounts } from '../../services/exports/instance-export.js';
import { CliError, openCliContext } from '../context.js';

export const EXPORT_HELP = `Usage: chute export [--output <file>]

Writes every record (accounts, folders, files, tags, short URLs, invites, settings) as one JSON document in
Zipline v4's export format, the same as GET /api/server/export: to standard output, or to <file> (written
whole or not at all). POST /api/server/import takes it on another instance. It holds password hashes, TOTP
secrets and invite codes: keep it like a password file. File bytes stay in storage (copy them separately),
but for those of small files kept in the database, which it carries.
`;

/** Streams the export into `out`; resolves with how many records of each kind it holds. */
async function writeExport(ctx: AppContext, out: Writable): Promise<Record<string, number>> {
  const pieces = await serverExport(ctx, { id: 'cli', username: 'chute export' });
  for await (const piece of pieces) {
    if (!out.write(piece)) await new Promise((resolve) => out.once('drain', resolve));
  }
  return serverExportCounts(ctx);
}

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
      await writeExport(cli.ctx, process.stdout);
      return;
    }
    // A temp file renamed into place: an interrupted export never leaves a truncated document under the name.
    const temp = `${values.output}.${process.pid}.tmp`;
    const file = createWriteStream(temp, { flags: 'wx' });
    try {
      const counts = await writeExport(cli.ctx, file);
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
