// Readiness: whether a load balancer should send this instance requests. It is false while the instance drains (a
// SIGTERM arrived: requests in progress finish, new ones should go elsewhere) and while the database does not answer.
// Liveness stays GET /api/healthcheck, the spec's.
import type { AppContext } from '../../context.js';
import { pingDatabase } from '../../db/index.js';

/** How long the readiness answer waits for the database before saying it is not ready. */
const DATABASE_CHECK_MS = 2_000;

export type Readiness = { ready: true } | { ready: false; reason: 'draining' | 'database' };

/** Ready unless draining or the database does not answer within a couple of seconds. */
export async function checkReadiness(ctx: AppContext): Promise<Readiness> {
  if (ctx.lifecycle.draining) return { ready: false, reason: 'draining' };
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([
    pingDatabase(ctx.db).then(
      () => true,
      () => false,
    ),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), DATABASE_CHECK_MS))),
  ]);
  clearTimeout(timer);
  if (!answered) return { ready: false, reason: 'database' };
  // The answer may have taken a while: a drain that began meanwhile wins.
  return ctx.lifecycle.draining ? { ready: false, reason: 'draining' } : { ready: true };
}
