// The health check: the database must answer a query.
import type { AppContext } from '../../context.js';
import { pingDatabase } from '../../db/index.js';
import { ApiError } from '../../lib/errors.js';

export async function checkHealth(ctx: AppContext): Promise<{ pass: true }> {
  try {
    await pingDatabase(ctx.db);
  } catch (err) {
    throw new ApiError(6003, (err as Error).message, { cause: err });
  }
  return { pass: true };
}
