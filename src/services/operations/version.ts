// The running version (the version of Chute's package.json, found once by walking up from this module: the same
// from src/ under tsx and from dist/ when built), and the optional check for a newer release.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { toIso } from '../../lib/clock.js';
import { ApiError } from '../../lib/errors.js';
import { outboundRequest } from '../../lib/outbound-http.js';

let cached: string | undefined;

export function runningVersion(): string {
  if (cached !== undefined) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'chute' && typeof pkg.version === 'string') return (cached = pkg.version);
    } catch {
      // not here: one folder up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return (cached = 'unknown');
    dir = parent;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The update check (setting featuresVersionChecking, off by default: the server may have no internet): asks the
// release feed at VERSION_CHECK_URL for the latest release, keeps a good answer an hour, and answers 6001 when the
// feed cannot be asked or makes no sense.

export interface UpdateCheck {
  /** The latest released version, without a leading v. */
  latest: string;
  /** The release's page, when the feed names one. */
  url: string | null;
  /** Whether `latest` is newer than the running version. */
  available: boolean;
  checkedAt: string;
  /** Whether this is a kept answer of an earlier check. */
  cached: boolean;
}

/** A good answer of the feed is kept this long (GitHub allows 60 unauthenticated requests an hour). */
export const UPDATE_CHECK_CACHE_MS = 3_600_000;
/** What is read of the feed's answer; a release's JSON is a few kilobytes (its notes included). */
const MAX_FEED_BYTES = 256 * 1024;

/** GitHub's releases API (GET /repos/<owner>/<repo>/releases/latest) ... */
const GithubRelease = z.looseObject({
  tag_name: z.string().min(1).max(100),
  html_url: z.string().max(2048).optional(),
});
/** ... or a plain feed of one's own. */
const PlainRelease = z.looseObject({ version: z.string().min(1).max(100), url: z.string().max(2048).optional() });

/** The version and page of the feed's answer, or null when it names none. */
function parseFeed(body: string): { version: string; url: string | undefined } | null {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  const github = GithubRelease.safeParse(json);
  if (github.success) return { version: github.data.tag_name, url: github.data.html_url };
  const plain = PlainRelease.safeParse(json);
  if (plain.success) return { version: plain.data.version, url: plain.data.url };
  return null;
}

interface Kept {
  at: number;
  check: Omit<UpdateCheck, 'cached'>;
}

/** Per running server (tests run several in one process), the last good answer and the check under way. */
const kept = new WeakMap<AppContext, { last?: Kept; pending?: Promise<Kept> }>();

/** GET /api/version: the running version, and the latest release while the setting featuresVersionChecking is on. */
export async function versionInfo(ctx: AppContext): Promise<{ version: string; update?: UpdateCheck }> {
  const version = runningVersion();
  if (!ctx.settings.get().featuresVersionChecking) return { version };
  return { version, update: await checkForUpdate(ctx) };
}

/** The latest release as the feed names it (6001 when it cannot be had). */
export async function checkForUpdate(ctx: AppContext): Promise<UpdateCheck> {
  let state = kept.get(ctx);
  if (!state) kept.set(ctx, (state = {}));
  const now = ctx.clock.now();
  if (state.last && now - state.last.at < UPDATE_CHECK_CACHE_MS) return { ...state.last.check, cached: true };
  // Concurrent callers share one request to the feed.
  const entry = state;
  entry.pending ??= askFeed(ctx).finally(() => {
    entry.pending = undefined;
  });
  entry.last = await entry.pending;
  return { ...entry.last.check, cached: false };
}

async function askFeed(ctx: AppContext): Promise<Kept> {
  const feed = ctx.config.VERSION_CHECK_URL;
  let answer;
  try {
    answer = await outboundRequest(
      feed,
      { method: 'GET', headers: { accept: 'application/vnd.github+json, application/json' } },
      { timeoutMs: ctx.config.VERSION_CHECK_TIMEOUT * 1000, maxResponseBytes: MAX_FEED_BYTES },
    );
  } catch (err) {
    throw new ApiError(6001, err instanceof Error ? err.message : String(err), { cause: err });
  }
  if (answer.status !== 200) throw new ApiError(6001, `the release feed answered ${answer.status}`);
  const release = parseFeed(answer.truncated ? '' : answer.body);
  if (!release) {
    throw new ApiError(6001, 'the release feed answered no version (expected {"tag_name"} or {"version"})');
  }
  const latest = release.version.replace(/^v/i, '');
  const page = release.url;
  const at = ctx.clock.now();
  return {
    at,
    check: {
      latest,
      url: page && /^https?:\/\//i.test(page) ? page : null,
      available: isNewerVersion(latest, runningVersion()),
      checkedAt: toIso(at),
    },
  };
}

/** Whether version `a` is newer than `b` (major.minor.patch numerically; a release is newer than its pre-release). */
export function isNewerVersion(a: string, b: string): boolean {
  const parse = (v: string) => {
    const [core = '', pre] = v.replace(/^v/i, '').split(/-(.*)/s, 2);
    return { parts: core.split('.').map((p) => Number.parseInt(p, 10) || 0), pre: pre ?? null };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < Math.max(x.parts.length, y.parts.length, 3); i++) {
    const d = (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  if (x.pre === y.pre) return false;
  if (x.pre === null) return true;
  if (y.pre === null) return false;
  return x.pre.localeCompare(y.pre, 'en', { numeric: true }) > 0;
}
