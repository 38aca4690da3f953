// Snapshots of the instance's statistics, kept every metricsInterval and answered as a series by GET /api/stats, in
// the shape of Zipline's Metric. A snapshot reads the stored usage counters (db/schema/usage-counters.ts): one row per user
// and per media type, never a pass over the files, so it costs the same at ten files and at a million. Every
// instance looks every minute whether the current interval slot has its snapshot; the slot is unique in the table,
// so of several instances sharing the database exactly one keeps it. A young series (fewer than EARLY_SNAPSHOTS) also
// gets a snapshot at start and at the first look after its figures change, so that a new server's charts show its
// first uploads within a minute instead of one point at zero until the next slot.
import { sql } from 'kysely';
import type { AppContext } from '../../context.js';
import { parseDuration } from '../../lib/text/durations.js';
import { ApiError } from '../../lib/errors.js';
import { newId } from '../../lib/security/ids.js';
import type { Role } from '../../db/schema/tables.js';
import { INSTANCE, typeCounts, usageOfOne } from './usage.js';
import { flushViews } from '../serving/view-counts.js';

/** How often each instance checks whether the current slot has its snapshot. */
export const METRICS_TICK_MS = 60_000;
/** Most users (by files, by URLs) and media types a snapshot lists. */
export const METRICS_TOP = 100;
/** While the series has fewer snapshots than this, a change of the figures gets one at once (takeEarlySnapshot). */
export const EARLY_SNAPSHOTS = 5;
/** Early snapshots are kept on minute slots: two instances looking in the same minute keep one. */
const EARLY_SLOT_MS = 60_000;
/** The span GET /api/stats answers when `from` is not given. */
export const DEFAULT_STATS_SPAN_MS = 7 * 86_400_000;

/** Zipline's Metric data. */
export interface MetricData {
  users: number;
  files: number;
  fileViews: number;
  urls: number;
  urlViews: number;
  /** Bytes of every stored file. */
  storage: number;
  /** Users with files, most files first: uploads (`sum`), their bytes and views. */
  filesUsers: Array<{ username: string; sum: number; storage: number; views: number }>;
  /** Users with short URLs, most first. */
  urlsUsers: Array<{ username: string; sum: number; views: number }>;
  /** Files by media type, most first. */
  types: Array<{ type: string; sum: number }>;
}

export interface Metric {
  id: string;
  createdAt: string;
  updatedAt: string;
  data: MetricData;
}

type Aggregate = number | string | bigint | null;
const num = (value: Aggregate): number => Number(value ?? 0);

/** The statistics now, from the stored counters. */
export async function currentMetricData(ctx: AppContext): Promise<MetricData> {
  // Views counted on this instance and not yet written are part of the totals.
  await flushViews(ctx);
  const db = ctx.db;
  const [users, instance, types, filesUsers, urlsUsers] = await Promise.all([
    db
      .selectFrom('users')
      .select(sql<Aggregate>`count(*)`.as('count'))
      .executeTakeFirstOrThrow(),
    usageOfOne(db, INSTANCE),
    typeCounts(db, INSTANCE, METRICS_TOP),
    db
      .selectFrom('usage_counters')
      .innerJoin('users', 'users.id', 'usage_counters.owner')
      .select(['users.username', 'usage_counters.files', 'usage_counters.bytes', 'usage_counters.file_views'])
      .where('usage_counters.files', '>', 0)
      .orderBy('usage_counters.files', 'desc')
      .orderBy('users.username')
      .limit(METRICS_TOP)
      .execute(),
    db
      .selectFrom('usage_counters')
      .innerJoin('users', 'users.id', 'usage_counters.owner')
      .select(['users.username', 'usage_counters.urls', 'usage_counters.url_views'])
      .where('usage_counters.urls', '>', 0)
      .orderBy('usage_counters.urls', 'desc')
      .orderBy('users.username')
      .limit(METRICS_TOP)
      .execute(),
  ]);
  return {
    users: num(users.count),
    files: instance.files,
    fileViews: instance.fileViews,
    urls: instance.urls,
    urlViews: instance.urlViews,
    storage: instance.bytes,
    filesUsers: filesUsers.map((u) => ({
      username: u.username,
      sum: num(u.files),
      storage: num(u.bytes),
      views: num(u.file_views),
    })),
    urlsUsers: urlsUsers.map((u) => ({ username: u.username, sum: num(u.urls), views: num(u.url_views) })),
    types: types.map((t) => ({ type: t.type, sum: t.files })),
  };
}

/** The metricsInterval setting in milliseconds. */
export function metricsIntervalMs(ctx: AppContext): number {
  return parseDuration(ctx.settings.get().metricsInterval)!;
}

/**
 * Keeps a snapshot for the current interval slot unless it has one already (taken by this or another instance, or a
 * later slot has one: the interval was made shorter); nothing while metrics are off. Returns whether this call kept it.
 */
export async function takeMetricsSnapshot(ctx: AppContext): Promise<boolean> {
  if (!ctx.settings.get().metricsEnabled) return false;
  const now = ctx.clock.now();
  const slot = now - (now % metricsIntervalMs(ctx));
  const taken = await ctx.db.selectFrom('metrics').select('id').where('slot', '>=', slot).limit(1).executeTakeFirst();
  if (taken) return false;
  const data = await currentMetricData(ctx);
  // Two instances may get here for one slot: the unique slot keeps the first, the other's insert does nothing.
  const kept = await ctx.db
    .insertInto('metrics')
    .values({ id: newId(), slot, created_at: now, data: JSON.stringify(data) })
    .onConflict((oc) => oc.column('slot').doNothing())
    .returning('id')
    .executeTakeFirst();
  return kept !== undefined;
}

/** The totals a chart draws: an early snapshot is kept only when one of them changed. */
const TOTALS = ['users', 'files', 'fileViews', 'urls', 'urlViews', 'storage'] as const;

/**
 * While the series is young (fewer than EARLY_SNAPSHOTS snapshots), keeps one now when there is none yet or when the
 * totals differ from the latest snapshot's, on the current minute. Returns whether this call kept one.
 */
export async function takeEarlySnapshot(ctx: AppContext): Promise<boolean> {
  if (!ctx.settings.get().metricsEnabled) return false;
  const recent = await ctx.db
    .selectFrom('metrics')
    .select('data')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(EARLY_SNAPSHOTS)
    .execute();
  if (recent.length >= EARLY_SNAPSHOTS) return false;
  const data = await currentMetricData(ctx);
  if (recent.length > 0) {
    const latest = JSON.parse(recent[0]!.data) as MetricData;
    if (TOTALS.every((key) => latest[key] === data[key])) return false;
  }
  const now = ctx.clock.now();
  const kept = await ctx.db
    .insertInto('metrics')
    .values({ id: newId(), slot: now - (now % EARLY_SLOT_MS), created_at: now, data: JSON.stringify(data) })
    .onConflict((oc) => oc.column('slot').doNothing())
    .returning('id')
    .executeTakeFirst();
  return kept !== undefined;
}

/** The periodic look (and the one at start): the current slot's snapshot, else an early one while the series is young. */
export async function takeMetricsSnapshots(ctx: AppContext): Promise<boolean> {
  return (await takeMetricsSnapshot(ctx)) || (await takeEarlySnapshot(ctx));
}

/** When the next snapshots come, for the overview to say (GET /api/server/stats). */
export interface SnapshotSchedule {
  enabled: boolean;
  intervalMs: number;
  /** The next slot's snapshot: at the first look (every minute) after this time; null while metrics are off. */
  nextAt: number | null;
  /** The series is young: a change of the figures gets a snapshot within a minute. */
  early: boolean;
}

export async function snapshotSchedule(ctx: AppContext): Promise<SnapshotSchedule> {
  const intervalMs = metricsIntervalMs(ctx);
  if (!ctx.settings.get().metricsEnabled) return { enabled: false, intervalMs, nextAt: null, early: false };
  const now = ctx.clock.now();
  const slot = now - (now % intervalMs);
  const [taken, recent] = await Promise.all([
    ctx.db.selectFrom('metrics').select('id').where('slot', '>=', slot).limit(1).executeTakeFirst(),
    ctx.db.selectFrom('metrics').select('id').limit(EARLY_SNAPSHOTS).execute(),
  ]);
  return {
    enabled: true,
    intervalMs,
    nextAt: taken ? slot + intervalMs : now,
    early: recent.length < EARLY_SNAPSHOTS,
  };
}

export interface StatsQuery {
  from?: number;
  to?: number;
  all: boolean;
}

/**
 * GET /api/stats: the snapshots taken between `from` (default: 7 days ago) and `to` (default: now), or all of them,
 * newest first. Metrics off -> 3001; admin-only and not an admin -> 3000; from after to -> 1058; from in the
 * future -> 1059. Other users' names and figures are for admins only: others get empty filesUsers and urlsUsers.
 */
export async function statsSeries(ctx: AppContext, viewer: { role: Role }, query: StatsQuery): Promise<Metric[]> {
  const settings = ctx.settings.get();
  if (!settings.metricsEnabled) throw new ApiError(3001);
  const admin = viewer.role !== 'USER';
  if (settings.metricsAdminOnly && !admin) throw new ApiError(3000);
  const now = ctx.clock.now();
  const from = query.from ?? now - DEFAULT_STATS_SPAN_MS;
  const to = query.to ?? now;
  if (from > to) throw new ApiError(1058);
  if (from > now) throw new ApiError(1059);
  const rows = await ctx.db
    .selectFrom('metrics')
    .select(['id', 'created_at', 'data'])
    .$if(!query.all, (qb) => qb.where('created_at', '>=', from).where('created_at', '<=', to))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map((row) => {
    const data = JSON.parse(row.data) as MetricData;
    const createdAt = new Date(Number(row.created_at)).toISOString();
    return {
      id: row.id,
      createdAt,
      updatedAt: createdAt,
      data: admin ? data : { ...data, filesUsers: [], urlsUsers: [] },
    };
  });
}
