// The `chute` command (bin/chute.mjs runs it): administration from the server's console, with the server's own
// configuration (environment and .env, src/config.ts) and its own services.
import { isApiError } from '../lib/errors.js';
import { CliError } from './context.js';

export const HELP = `Usage: chute <command> [options]

Administration of a Chute installation. Reads the server's configuration: the environment and a .env file
in the current folder (docs/configuration.md).

Commands:
  user create <username>   Create an account (--role, --password-stdin)
  user reset-password <username>
                           Set a new password (ends the account's sessions)
  user list                Every account: username and role, one a line
  user set-role <username> <role>
                           Change an account's role
  import <folder> --user <name>
                           Upload every file under a folder as that user (quotas and thumbnails apply)
  export [--output <file>] Write the instance's records as JSON (standard output by default)
  storage inline --out | --in
                           Move small files' bytes out of the database into the datasource, or back in
  doctor                   Check the configuration, database, storage, Redis and ffmpeg
  migrate                  Bring the database to this version's schema

Run chute <command> --help for a command's options.
`;

// Each command's module (and what it imports: storage, the upload path ...) loads only when it runs.
const COMMANDS: Record<string, () => Promise<(argv: string[]) => Promise<void>>> = {
  user: async () => (await import('./commands/user.js')).userCommand,
  import: async () => (await import('./commands/import.js')).importCommand,
  export: async () => (await import('./commands/export.js')).exportCommand,
  storage: async () => (await import('./commands/storage.js')).storageCommand,
  doctor: async () => (await import('./commands/doctor.js')).doctorCommand,
  migrate: async () => (await import('./commands/migrate.js')).migrateCommand,
};

/** Runs one command line; returns the exit code. */
async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    process.stderr.write(HELP);
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`chute: unknown command ${JSON.stringify(name)}\n\n${HELP}`);
    return 2;
  }
  try {
    await (
      await command()
    )(rest);
    return process.exitCode === undefined ? 0 : Number(process.exitCode);
  } catch (err) {
    // The reader of standard output went away (`chute export | head`): nothing more to say to it.
    if ((err as NodeJS.ErrnoException).code === 'EPIPE') return 0;
    if (err instanceof CliError) {
      process.stderr.write(`chute ${name}: ${err.message}\n`);
      return err.exitCode;
    }
    // The services' errors carry the spec's code and message: say them as they are.
    if (isApiError(err)) {
      process.stderr.write(`chute ${name}: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`chute ${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}

// What a command creates in DATA_DIR (the database and its -wal/-shm, the secret, the instance id, uploads, temp
// files, an export written with --output) is private to the account, as the server makes it (src/main.ts): files
// 0600, folders 0700. The umask is only ever tightened.
process.umask(process.umask() | 0o077);

process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
});
const code = await runCli(process.argv.slice(2));
// Let standard output drain (a pipe may be slow), then end: no pool or timer of a service keeps the command alive.
process.stdout.write('', () => process.exit(code));
