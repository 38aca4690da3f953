// chute migrate: brings the database to this version's schema, as a server start does, and says what it ran.
import { describeMigrationProgress } from '../../db/schema/migrate.js';
import { migrateDatabase } from '../../instance.js';
import { openCliInstance, readConfig } from '../context.js';

export const MIGRATE_HELP = `Usage: chute migrate

Runs the database migrations this version has and the database has not (a server start runs them too), under
the lock that keeps several processes from migrating at once, and says on stderr what each one does and how long
it took. Back up first (docs/operations.md).
`;

export async function migrateCommand(argv: string[]): Promise<void> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(MIGRATE_HELP);
    return;
  }
  const base = openCliInstance(readConfig());
  try {
    const applied = await migrateDatabase(base, (event) => {
      if (event.message !== 'started') process.stderr.write(`${describeMigrationProgress(event)}\n`);
    });
    if (applied.length === 0) process.stdout.write('the database is up to date\n');
    else for (const name of applied) process.stdout.write(`applied ${name}\n`);
  } finally {
    await base.database.close();
  }
}
