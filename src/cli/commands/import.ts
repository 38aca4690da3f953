// chute import <folder> --user <name>: uploads every file under a folder as one user, each streamed through the same
// service as POST /api/upload (size limit, quotas, names, thumbnail jobs, the usage counters), one file at a time.
import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline, Transform } from 'node:stream';
import { parseArgs } from 'node:util';
import { parseUploadOptions, UPLOAD_HEADERS } from '../../http/uploads/headers.js';
import { isApiError } from '../../lib/errors.js';
import { FILE_NAME_FORMATS } from '../../lib/text/file-names.js';
import { formatByteSize } from '../../lib/text/sizes.js';
import { findUserByName } from '../../services/accounts/account.js';
import { removeUnrecordedObjects } from '../../services/uploads/pending-objects.js';
import { assertUploadFolder, uploadFiles } from '../../services/uploads/store-files.js';
import { CliError, openCliContext } from '../context.js';
import { Progress } from '../progress.js';

export const IMPORT_HELP = `Usage: chute import <folder> --user <name> [options]

Uploads every file under <folder> (sub-folders included, symbolic links and hidden files skipped) as <name>'s
files, each streamed through the server's own upload path: its size limit, the user's quota, naming, thumbnails.
Shows a progress bar on a terminal, one line per file otherwise. A file that is refused (too large, over the
quota, a disabled extension) is reported and skipped; the command then ends with exit code 1.

Options:
  --user <name>            The owner of the imported files (required)
  --folder <id>            Put the files in this folder of the user's
  --format <format>        Served names: random, uuid, date, name or random-words (default: the server's setting)
  --keep-original-name     Keep each file's name as its original name (default: the server's setting
                           filesKeepOriginalName, on unless an admin turned it off)
  --private                Serve the files only to their owner and through share links
  --include-hidden         Import hidden files (names starting with a dot) too
`;

interface FoundFile {
  file: string;
  size: number;
}

/** The regular files under `root`, in name order; hidden ones only when asked. */
async function findFiles(root: string, includeHidden: boolean): Promise<FoundFile[]> {
  const found: FoundFile[] = [];
  const walk = async (dir: string) => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (!includeHidden && entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) found.push({ file: full, size: (await stat(full)).size });
    }
  };
  await walk(root);
  return found;
}

export async function importCommand(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        user: { type: 'string' },
        folder: { type: 'string' },
        format: { type: 'string' },
        'keep-original-name': { type: 'boolean' },
        private: { type: 'boolean' },
        'include-hidden': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new CliError(`${(err as Error).message}\n\n${IMPORT_HELP}`, 2);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(IMPORT_HELP);
    return;
  }
  if (positionals.length !== 1 || !values.user)
    throw new CliError(`expected <folder> --user <name>\n\n${IMPORT_HELP}`, 2);
  if (values.format !== undefined && !(FILE_NAME_FORMATS as readonly string[]).includes(values.format)) {
    throw new CliError(`--format ${values.format}: expected one of ${FILE_NAME_FORMATS.join(', ')}`, 2);
  }
  const root = path.resolve(positionals[0]!);
  const rootStat = await stat(root).catch(() => null);
  if (!rootStat?.isDirectory()) throw new CliError(`${root} is not a folder`);

  const cli = await openCliContext({ storage: true });
  const { ctx, config } = cli;
  try {
    // What an interrupted import left behind (bytes stored, never recorded) goes first, as at a server's start.
    await removeUnrecordedObjects(ctx);
    const user = await findUserByName(ctx.db, values.user);
    if (!user) throw new CliError(`no user named ${JSON.stringify(values.user)} (chute user list shows them)`);
    const headers: Record<string, string> = {};
    if (values.folder) headers[UPLOAD_HEADERS.folder] = values.folder;
    if (values.format) headers[UPLOAD_HEADERS.format] = values.format;
    if (values['keep-original-name']) headers[UPLOAD_HEADERS.originalName] = 'true';
    if (values.private) headers[UPLOAD_HEADERS.private] = 'true';
    // The server's defaults and checks of the same options an upload request carries.
    const options = parseUploadOptions(headers, ctx.settings.get(), ctx.clock.now());
    // A folder that is not the user's stops the import before the first file (each upload would refuse it).
    await assertUploadFolder(ctx, user.id, options.folderId);
    const baseUrl = (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '');

    const files = await findFiles(root, values['include-hidden'] === true);
    const totalBytes = files.reduce((sum, f) => sum + f.size, 0);
    process.stderr.write(`importing ${files.length} file(s), ${formatByteSize(totalBytes)}, as ${user.username}\n`);
    const progress = new Progress(files.length, totalBytes);
    let failed = 0;
    for (const found of files) {
      const relative = path.relative(root, found.file);
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          progress.advance(chunk.length);
          callback(null, chunk);
        },
      });
      // pipeline() carries a read error on to the upload (pipe() would leave it waiting for bytes).
      pipeline(createReadStream(found.file), counted, () => undefined);
      const stream = counted;
      try {
        const answer = await uploadFiles(ctx, {
          user,
          options,
          baseUrl,
          files: (async function* () {
            yield { stream, fileName: path.basename(found.file), mimeType: undefined };
          })(),
        });
        progress.itemDone(`${relative} -> ${answer.files[0]!.url}`);
      } catch (err) {
        // Refused by the rules (ApiError) or unreadable (a file system error): this file only.
        if (!isApiError(err) && (err as NodeJS.ErrnoException).syscall === undefined) throw err;
        failed++;
        progress.itemDone(`${relative}: not imported: ${(err as Error).message}`);
      } finally {
        stream.destroy();
      }
    }
    progress.finish();
    process.stderr.write(`imported ${files.length - failed} of ${files.length} file(s)\n`);
    if (failed > 0) process.exitCode = 1;
  } finally {
    await cli.close();
  }
}
