// chute user create | reset-password | list | set-role: account administration from the server's console.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Role } from '../../db/schema/tables.js';
import {
  createUserAsOperator,
  listAccounts,
  resetPasswordAsOperator,
  setRoleAsOperator,
} from '../../services/accounts/users.js';
import { CliError, openCliContext } from '../context.js';
import { readNewPassword } from '../prompt.js';

export const USER_HELP = `Usage: chute user <command>

Commands:
  create <username> [--role USER|ADMIN|SUPERADMIN] [--password-stdin]
                           Create an account (role USER unless given). A SUPERADMIN made here also ends
                           first-time setup.
  reset-password <username> [--password-stdin]
                           Set a new password; the account's API token is replaced and its sessions end.
  list                     Every account, one a line: username and role.
  set-role <username> <USER|ADMIN|SUPERADMIN>
                           Change an account's role (the last SUPERADMIN stays one).

The password is asked at the terminal (twice, not echoed), or read from the first line of standard input
with --password-stdin.
`;

const ROLES: readonly Role[] = ['USER', 'ADMIN', 'SUPERADMIN'];

function parseRole(text: string | undefined): Role {
  const role = (text ?? '').toUpperCase() as Role;
  if (!ROLES.includes(role))
    throw new CliError(`unknown role ${JSON.stringify(text ?? '')}: USER, ADMIN or SUPERADMIN`);
  return role;
}

/** The arguments of a subcommand: named positionals and options, anything else refused. */
function args(
  argv: string[],
  positionals: string[],
  options: ParseArgsConfig['options'] = {},
): { values: Record<string, string | boolean | undefined>; named: Record<string, string> } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new CliError(`${(err as Error).message}\n\n${USER_HELP}`, 2);
  }
  if (parsed.positionals.length !== positionals.length) {
    throw new CliError(`expected ${positionals.map((p) => `<${p}>`).join(' ') || 'no arguments'}\n\n${USER_HELP}`, 2);
  }
  const named = Object.fromEntries(positionals.map((p, i) => [p, parsed.positionals[i]!]));
  return { values: parsed.values as Record<string, string | boolean | undefined>, named };
}

export async function userCommand(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    process.stdout.write(USER_HELP);
    return;
  }
  switch (sub) {
    case 'create': {
      const { values, named } = args(rest, ['username'], {
        role: { type: 'string' },
        'password-stdin': { type: 'boolean' },
      });
      const role = parseRole((values.role as string | undefined) ?? 'USER');
      await withContext(async (ctx) => {
        // Asked once the database is known to be usable: nobody types a password for nothing.
        const password = await readNewPassword(values['password-stdin'] === true);
        const user = await createUserAsOperator(ctx, { username: named.username!, password, role });
        process.stdout.write(`created ${user.username} (${user.role})\n`);
      });
      return;
    }
    case 'reset-password': {
      const { values, named } = args(rest, ['username'], { 'password-stdin': { type: 'boolean' } });
      await withContext(async (ctx) => {
        const password = await readNewPassword(values['password-stdin'] === true);
        const user = await resetPasswordAsOperator(ctx, named.username!, password);
        process.stdout.write(`new password set for ${user.username}; its API token was replaced, its sessions ended\n`);
      });
      return;
    }
    case 'list': {
      args(rest, []);
      await withContext(async (ctx) => {
        for (const account of await listAccounts(ctx)) process.stdout.write(`${account.username} ${account.role}\n`);
      });
      return;
    }
    case 'set-role': {
      const { named } = args(rest, ['username', 'role']);
      const role = parseRole(named.role);
      await withContext(async (ctx) => {
        const user = await setRoleAsOperator(ctx, named.username!, role);
        process.stdout.write(`${user.username} is ${user.role}\n`);
      });
      return;
    }
    default:
      throw new CliError(`unknown command: user ${sub}\n\n${USER_HELP}`, 2);
  }
}

async function withContext(fn: (ctx: Awaited<ReturnType<typeof openCliContext>>['ctx']) => Promise<void>) {
  const cli = await openCliContext({ storage: false });
  try {
    await fn(cli.ctx);
  } finally {
    await cli.close();
  }
}
