// The Fastify instance type every route file receives (zod schemas give request and reply their types), and the
// shapes of route modules and of the area plugins that app.ts registers.
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyPluginAsync,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.js';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/**
 * A route module: registers its routes on the scope of its route group (http/auth.ts registerRouteGroups), under the
 * group's prefix and behind its authentication, using the services through ctx.
 */
export type RouteModule = (app: App, ctx: AppContext) => Promise<void> | void;

/** What app.ts registers an area's plugin with. */
export interface AreaOptions {
  ctx: AppContext;
}

/** An area of the API (routes/<area>/index.ts): an encapsulated plugin that registers the area's route groups. */
export type AreaPlugin = FastifyPluginAsync<AreaOptions, RawServerDefault, ZodTypeProvider>;
