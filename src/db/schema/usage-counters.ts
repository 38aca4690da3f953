// Stored counters of what each owner holds (issue 23, item 4): files, bytes, file views, favourites, short URLs and
// their views per user, files and bytes per user and media type, and the same for the whole instance, so that
// statistics, quota checks and the unfiltered total of a listing read a row instead of counting.
//
// Triggers keep them in the same transaction as every change of `files` and `urls` (inserts, deletes, and updates of
// the owner, size, favourite or type), whichever code makes it, on SQLite and PostgreSQL alike. View counts are the
// exception: they move without a trigger (services/serving/view-counts.ts folds them in with the batched view writes), so that
// serving a file or a redirect never writes a row that every request shares.
//
// Owners: a user's id; OWNERLESS for files whose owner was deleted without them (and URLs without an owner); INSTANCE
// for the sum of all. Subtractions only ever update an existing row (never create one), so a user's rows removed with
// the user cannot come back, whatever order the database runs the cascades in.
import { sql, type QueryExecutorProvider } from 'kysely';
import { createTriggers, dropTriggers, isPostgresExecutor, pgStatementTriggers, type TriggerSet } from './triggers.js';
import type { Db } from './tables.js';

type Executor = QueryExecutorProvider;

export const OWNERLESS = '';
export const INSTANCE = '*';

/** The counters of one owner. */
export interface UsageCounters {
  files: number;
  bytes: number;
  fileViews: number;
  favorites: number;
  urls: number;
  urlViews: number;
}

/** Column of usage_counters for each counter. */
export const COUNTER_COLUMNS = {
  files: 'files',
  bytes: 'bytes',
  fileViews: 'file_views',
  favorites: 'favorites',
  urls: 'urls',
  urlViews: 'url_views',
} as const satisfies Record<keyof UsageCounters, string>;

const isPostgres = isPostgresExecutor;

export async function createCounterTables(db: Executor): Promise<void> {
  await sql`create table usage_counters (
    owner text primary key,
    files bigint not null default 0,
    bytes bigint not null default 0,
    file_views bigint not null default 0,
    favorites bigint not null default 0,
    urls bigint not null default 0,
    url_views bigint not null default 0
  )`.execute(db);
  // The users storing the most (the admin overview) are read through this index.
  await sql`create index usage_counters_bytes on usage_counters (bytes, owner)`.execute(db);
  await sql`create table type_counters (
    owner text not null,
    type text not null,
    files bigint not null default 0,
    bytes bigint not null default 0,
    primary key (owner, type)
  )`.execute(db);
}

export async function dropCounterTables(db: Executor): Promise<void> {
  await sql`drop table if exists type_counters`.execute(db);
  await sql`drop table if exists usage_counters`.execute(db);
}

// --- Triggers -------------------------------------------------------------------------------------------------------

/** SQL that adds (sign 1) or subtracts (sign -1) one file row (`row` is new or old) for its owner and the instance. */
function sqliteFileChange(row: 'new' | 'old', sign: 1 | -1): string {
  const owner = `coalesce(${row}.user_id, '')`;
  const s = sign === 1 ? '+' : '-';
  const deltas = `files = files ${s} 1, bytes = bytes ${s} ${row}.size, file_views = file_views ${s} ${row}.views,
      favorites = favorites ${s} ${row}.favorite`;
  const typeDeltas = `files = files ${s} 1, bytes = bytes ${s} ${row}.size`;
  if (sign === -1) {
    return `update usage_counters set ${deltas} where owner in (${owner}, '*');
      update type_counters set ${typeDeltas} where owner in (${owner}, '*') and type = ${row}.type;`;
  }
  const values = `1, ${row}.size, ${row}.views, ${row}.favorite`;
  const upsert = `files = files + excluded.files, bytes = bytes + excluded.bytes,
      file_views = file_views + excluded.file_views, favorites = favorites + excluded.favorites`;
  return `insert into usage_counters (owner, files, bytes, file_views, favorites) values (${owner}, ${values}), ('*', ${values})
      on conflict (owner) do update set ${upsert};
    insert into type_counters (owner, type, files, bytes) values (${owner}, ${row}.type, 1, ${row}.size),
      ('*', ${row}.type, 1, ${row}.size)
      on conflict (owner, type) do update set files = files + excluded.files, bytes = bytes + excluded.bytes;`;
}

function sqliteUrlChange(row: 'new' | 'old', sign: 1 | -1): string {
  const owner = `coalesce(${row}.user_id, '')`;
  if (sign === -1) {
    return `update usage_counters set urls = urls - 1, url_views = url_views - ${row}.views
      where owner in (${owner}, '*');`;
  }
  return `insert into usage_counters (owner, urls, url_views) values (${owner}, 1, ${row}.views), ('*', 1, ${row}.views)
      on conflict (owner) do update set urls = urls + excluded.urls, url_views = url_views + excluded.url_views;`;
}

const SQLITE_TRIGGERS: Record<string, string> = {
  files_counters_insert: `after insert on files begin ${sqliteFileChange('new', 1)} end`,
  files_counters_delete: `after delete on files begin ${sqliteFileChange('old', -1)} end`,
  files_counters_update: `after update of user_id, size, favorite, type on files begin
    ${sqliteFileChange('old', -1)} ${sqliteFileChange('new', 1)} end`,
  urls_counters_insert: `after insert on urls begin ${sqliteUrlChange('new', 1)} end`,
  urls_counters_delete: `after delete on urls begin ${sqliteUrlChange('old', -1)} end`,
  urls_counters_update: `after update of user_id on urls begin
    ${sqliteUrlChange('old', -1)} ${sqliteUrlChange('new', 1)} end`,
  users_counters_delete: `after delete on users begin
    delete from usage_counters where owner = old.id;
    delete from type_counters where owner = old.id;
  end`,
};

/**
 * PostgreSQL: statement-level triggers over the transition tables, so that a statement touching many rows (a bulk
 * delete, an import, a user's files left without an owner) writes each counter row once, not once per file (row
 * triggers updating one row thousands of times in a transaction grow its version chain quadratically). Each
 * statement adds its deltas per owner, the instance's among them, in one order (byte order of the owner, as
 * services/serving/view-counts.ts does), so that two writers never wait on each other's rows in a cycle. Changes of `views`
 * alone add nothing here: view totals move with the batched view writes. The rows of a deleted user are never
 * written again (its files' move to no owner may run after the user's counters are gone: the order of the
 * foreign key's action and the users trigger is PostgreSQL's).
 */
function pgApply(deltas: string): string {
  return `with d as (${deltas}),
    owners as (
      select owner, sum(files) as files, sum(bytes) as bytes, sum(file_views) as file_views,
        sum(favorites) as favorites, sum(urls) as urls, sum(url_views) as url_views from d group by owner
      union all
      select '*', sum(files), sum(bytes), sum(file_views), sum(favorites), sum(urls), sum(url_views) from d
        having count(*) > 0
    ),
    usage as (
      insert into usage_counters as c (owner, files, bytes, file_views, favorites, urls, url_views)
        select * from owners where (files <> 0 or bytes <> 0 or file_views <> 0 or favorites <> 0 or urls <> 0
          or url_views <> 0) and (owner in ('', '*') or exists (select 1 from users where users.id = owner))
        order by owner collate "C"
      on conflict (owner) do update set files = c.files + excluded.files, bytes = c.bytes + excluded.bytes,
        file_views = c.file_views + excluded.file_views, favorites = c.favorites + excluded.favorites,
        urls = c.urls + excluded.urls, url_views = c.url_views + excluded.url_views
      returning 1
    ),
    types as (
      select owner, type, sum(files) as files, sum(bytes) as bytes from d where type is not null group by owner, type
      union all
      select '*', type, sum(files), sum(bytes) from d where type is not null group by type
    )
  insert into type_counters as c (owner, type, files, bytes)
    select * from types where (files <> 0 or bytes <> 0)
      and (owner in ('', '*') or exists (select 1 from users where users.id = owner))
    order by owner collate "C", type collate "C"
  on conflict (owner, type) do update set files = c.files + excluded.files, bytes = c.bytes + excluded.bytes`;
}

const fileSide = (table: string, sign: '' | '-', views = 'views') =>
  `select coalesce(user_id, '') as owner, type, ${sign}1::bigint as files, ${sign}size::bigint as bytes,
    ${sign}${views}::bigint as file_views, ${sign}favorite::bigint as favorites, 0::bigint as urls,
    0::bigint as url_views from ${table}`;

const urlSide = (table: string, sign: '' | '-', views = 'views') =>
  `select coalesce(user_id, '') as owner, null::text as type, 0::bigint as files, 0::bigint as bytes,
    0::bigint as file_views, 0::bigint as favorites, ${sign}1::bigint as urls, ${sign}${views}::bigint as url_views
    from ${table}`;

const PG_FUNCTIONS = `
create or replace function chute_files_counters() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    ${pgApply(fileSide('new_rows', ''))};
  elsif tg_op = 'DELETE' then
    ${pgApply(fileSide('old_rows', '-'))};
  else
    -- Only rows whose owner, size, favourite or type changed; their views move along at the value they had.
    ${pgApply(`with moved as (
        select o.user_id as old_user, n.user_id as new_user, o.size as old_size, n.size as new_size, o.views,
          o.favorite as old_favorite, n.favorite as new_favorite, o.type as old_type, n.type as new_type
        from old_rows o join new_rows n on n.id = o.id
        where o.user_id is distinct from n.user_id or o.size <> n.size or o.favorite <> n.favorite
          or o.type <> n.type
      )
      select coalesce(old_user, '') as owner, old_type as type, -1::bigint as files, -old_size::bigint as bytes,
        -views::bigint as file_views, -old_favorite::bigint as favorites, 0::bigint as urls, 0::bigint as url_views
        from moved
      union all
      select coalesce(new_user, ''), new_type, 1, new_size, views, new_favorite, 0, 0 from moved`)};
  end if;
  return null;
end $$;

create or replace function chute_urls_counters() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    ${pgApply(urlSide('new_rows', ''))};
  elsif tg_op = 'DELETE' then
    ${pgApply(urlSide('old_rows', '-'))};
  else
    ${pgApply(`with moved as (
        select o.user_id as old_user, n.user_id as new_user, o.views from old_rows o join new_rows n on n.id = o.id
        where o.user_id is distinct from n.user_id
      )
      select coalesce(old_user, '') as owner, null::text as type, 0::bigint as files, 0::bigint as bytes,
        0::bigint as file_views, 0::bigint as favorites, -1::bigint as urls, -views::bigint as url_views from moved
      union all
      select coalesce(new_user, ''), null, 0, 0, 0, 0, 1, views from moved`)};
  end if;
  return null;
end $$;

create or replace function chute_users_counters() returns trigger language plpgsql as $$
begin
  delete from usage_counters where owner = old.id;
  delete from type_counters where owner = old.id;
  return null;
end $$;
`;

const TRIGGERS: TriggerSet = {
  pgFunctions: PG_FUNCTIONS,
  pgFunctionNames: ['chute_files_counters', 'chute_urls_counters', 'chute_users_counters'],
  pg: {
    ...pgStatementTriggers('files_counters', 'files', 'chute_files_counters'),
    ...pgStatementTriggers('urls_counters', 'urls', 'chute_urls_counters'),
    users_counters_delete: `after delete on users for each row execute function chute_users_counters()`,
  },
  sqlite: SQLITE_TRIGGERS,
};

export const createCounterTriggers = (db: Executor): Promise<void> => createTriggers(db, TRIGGERS);

export const dropCounterTriggers = (db: Executor): Promise<void> => dropTriggers(db, TRIGGERS);

// --- View totals ----------------------------------------------------------------------------------------------------

/**
 * Adds views to an owner's totals, in the transaction of services/serving/view-counts.ts's flush (the one writer of
 * these counters besides the triggers). An owner without a row holds no records, so there is nothing to add to.
 */
export async function addViewTotals(db: Db, owner: string, fileViews: number, urlViews: number): Promise<void> {
  if (fileViews === 0 && urlViews === 0) return;
  await db
    .updateTable('usage_counters')
    .set((eb) => ({ file_views: eb('file_views', '+', fileViews), url_views: eb('url_views', '+', urlViews) }))
    .where('owner', '=', owner)
    .execute();
}

// --- Filling, checking ----------------------------------------------------------------------------------------------

/** What the counters should hold, counted afresh from the tables: per owner, and per owner and type. */
const FRESH_USAGE = `
  with per_owner as (
    select coalesce(user_id, '') as owner, count(*) as files, sum(size) as bytes, sum(views) as file_views,
      sum(favorite) as favorites, 0 as urls, 0 as url_views from files group by coalesce(user_id, '')
    union all
    select coalesce(user_id, '') as owner, 0, 0, 0, 0, count(*), sum(views) from urls group by coalesce(user_id, '')
  ), owners as (
    select owner, sum(files) as files, sum(bytes) as bytes, sum(file_views) as file_views,
      sum(favorites) as favorites, sum(urls) as urls, sum(url_views) as url_views from per_owner group by owner
  )
  select owner, files, bytes, file_views, favorites, urls, url_views from owners
  union all
  select '*', coalesce(sum(files), 0), coalesce(sum(bytes), 0), coalesce(sum(file_views), 0),
    coalesce(sum(favorites), 0), coalesce(sum(urls), 0), coalesce(sum(url_views), 0) from owners`;

const FRESH_TYPES = `
  select coalesce(user_id, '') as owner, type, count(*) as files, sum(size) as bytes from files
    group by coalesce(user_id, ''), type
  union all
  select '*', type, count(*), sum(size) from files group by type`;

/**
 * Sets every counter to what the tables hold now. PostgreSQL: inside a transaction that first locks files and urls
 * against writes (reads go on), so nothing changes between the count and the write; `db` must be a transaction there.
 */
export async function fillCounters(db: Executor): Promise<void> {
  if (isPostgres(db)) await sql`lock table files, urls in share mode`.execute(db);
  await sql`delete from usage_counters`.execute(db);
  await sql`delete from type_counters`.execute(db);
  await sql
    .raw(
      `insert into usage_counters (owner, files, bytes, file_views, favorites, urls, url_views)
    select owner, files, bytes, file_views, favorites, urls, url_views from (${FRESH_USAGE}) as fresh`,
    )
    .execute(db);
  await sql
    .raw(
      `insert into type_counters (owner, type, files, bytes) select owner, type, files, bytes from (${FRESH_TYPES}) as fresh`,
    )
    .execute(db);
}

/** One counter that differs from a fresh count. */
export interface CounterDrift {
  owner: string;
  /** The media type, for a per-type counter. */
  type?: string;
  counter: string;
  stored: number;
  counted: number;
}

/**
 * Compares every stored counter with a fresh count of the tables and lists the ones that differ (a missing row
 * counts as zeros). A view count may be behind by the views that an instance holds in memory, until its next flush.
 */
export async function counterDrift(db: Executor): Promise<CounterDrift[]> {
  type UsageRow = { owner: string } & Record<(typeof COUNTER_COLUMNS)[keyof UsageCounters], number | string>;
  type TypeRow = { owner: string; type: string; files: number | string; bytes: number | string };
  const [stored, fresh, storedTypes, freshTypes] = await Promise.all([
    sql<UsageRow>`select * from usage_counters`.execute(db),
    sql.raw<UsageRow>(FRESH_USAGE).execute(db),
    sql<TypeRow>`select owner, type, files, bytes from type_counters`.execute(db),
    sql.raw<TypeRow>(FRESH_TYPES).execute(db),
  ]);
  const drift: CounterDrift[] = [];
  const compare = <R extends { owner: string }>(
    storedRows: R[],
    freshRows: R[],
    key: (r: R) => string,
    columns: Array<keyof R & string>,
    extra: (r: R) => { type?: string },
  ) => {
    const storedBy = new Map(storedRows.map((r) => [key(r), r]));
    const freshBy = new Map(freshRows.map((r) => [key(r), r]));
    for (const k of new Set([...storedBy.keys(), ...freshBy.keys()])) {
      const s = storedBy.get(k);
      const f = freshBy.get(k);
      const row = (s ?? f)!;
      for (const column of columns) {
        const storedValue = Number(s?.[column] ?? 0);
        const countedValue = Number(f?.[column] ?? 0);
        if (storedValue !== countedValue)
          drift.push({ owner: row.owner, ...extra(row), counter: column, stored: storedValue, counted: countedValue });
      }
    }
  };
  compare(
    stored.rows,
    fresh.rows,
    (r) => r.owner,
    Object.values(COUNTER_COLUMNS),
    () => ({}),
  );
  compare(
    storedTypes.rows,
    freshTypes.rows,
    (r) => `${r.owner}\u0000${r.type}`,
    ['files', 'bytes'],
    (r) => ({
      type: r.type,
    }),
  );
  return drift;
}
