// The one thing migrations and their runner (db/schema/migrate.ts) share: how a long migration reports its steps.

/**
 * What a migration may say while it runs: a step of its work, with a count when it has one. A migration's `up` gets
 * it as its second argument: `up(db: Kysely<unknown>, report: MigrationStepReport)`.
 */
export type MigrationStepReport = (message: string, count?: { done: number; total: number }) => void;
