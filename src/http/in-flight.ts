// The route handlers still running, so that a stopping server can wait for them: a request cut off at the shutdown
// deadline still has its handler clean up (an upload removes its temp file) before the database closes.
import type { FastifyInstance } from 'fastify';

export class InFlightHandlers {
  private readonly running = new Set<Promise<unknown>>();

  track(work: Promise<unknown>): void {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.running.add(settled);
    void settled.then(() => this.running.delete(settled));
  }

  get size(): number {
    return this.running.size;
  }

  /** Resolves once every handler running now has finished, or after `ms`; true when they all did. */
  async settle(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    const all = Promise.all([...this.running]).then(() => true as const);
    try {
      return await Promise.race([all, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    inFlightHandlers: InFlightHandlers;
  }
}

/** Wraps every route registered after it so that its handler's promise is tracked (sync handlers are left as they are). */
export function registerInFlightHandlers(app: FastifyInstance): InFlightHandlers {
  const handlers = new InFlightHandlers();
  app.decorate('inFlightHandlers', handlers);
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, request, reply) {
      const result: unknown = handler.call(this, request, reply);
      if (result instanceof Promise) handlers.track(result);
      return result as ReturnType<typeof handler>;
    };
  });
  return handlers;
}
