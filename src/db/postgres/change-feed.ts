// Tells the other instances of a PostgreSQL database that something they keep in memory has changed (the settings),
// through LISTEN/NOTIFY on one dedicated connection: they hear it within milliseconds instead of at their next
// periodic refresh. A lost connection is re-opened after a second, and then every subscriber is called once, since
// notices sent meanwhile were missed. On SQLite (one process) publishing only calls this process's subscribers.
import pg from 'pg';
import { sql } from 'kysely';
import type { Db } from '../schema/tables.js';

const CHANNEL = 'chute_changes';
const RECONNECT_MS = 1_000;

export interface ChangeFeed {
  /** Tells every instance (this one included) that `topic` changed. */
  publish(topic: string): Promise<void>;
  /** Calls `fn` whenever any instance publishes `topic`, and after a reconnection. */
  subscribe(topic: string, fn: () => void): void;
  close(): Promise<void>;
}

export interface ChangeFeedOptions {
  db: Db;
  /** PostgreSQL URL; without one the feed is local to this process. */
  databaseUrl?: string | undefined;
  onError?: (err: unknown) => void;
}

export async function openChangeFeed(options: ChangeFeedOptions): Promise<ChangeFeed> {
  const subscribers = new Map<string, Array<() => void>>();
  const deliver = (topic: string) => {
    for (const fn of subscribers.get(topic) ?? []) fn();
  };
  const subscribe = (topic: string, fn: () => void) => {
    subscribers.set(topic, [...(subscribers.get(topic) ?? []), fn]);
  };
  const { databaseUrl, db } = options;
  if (!databaseUrl) {
    return {
      publish: async (topic) => deliver(topic),
      subscribe,
      close: async () => undefined,
    };
  }

  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: databaseUrl });
    next.on('notification', (msg) => {
      if (msg.channel === CHANNEL && msg.payload) deliver(msg.payload);
    });
    const lost = (err?: unknown) => {
      if (client !== next) return;
      client = undefined;
      if (err) options.onError?.(err);
      next.end().catch(() => undefined);
      scheduleReconnect();
    };
    next.on('error', lost);
    next.on('end', () => lost());
    await next.connect();
    await next.query(`LISTEN ${CHANNEL}`);
    client = next;
  };
  const scheduleReconnect = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(
        () => {
          for (const topic of subscribers.keys()) deliver(topic);
        },
        (err: unknown) => {
          options.onError?.(err);
          scheduleReconnect();
        },
      );
    }, RECONNECT_MS);
    retry.unref();
  };
  await connect();

  return {
    async publish(topic) {
      await sql`select pg_notify(${CHANNEL}, ${topic})`.execute(db);
    },
    subscribe,
    async close() {
      closed = true;
      clearTimeout(retry);
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}
