// Webhooks: on each upload (single or chunked) and each shortened URL, a signed JSON POST to every URL of the
// setting webhookUrls and a Discord message to discordWebhookUrl. Each delivery is a job of the durable queue,
// queued in the transaction that records the file or URL, so that it is retried with backoff and a receiver that
// keeps failing shows up in GET /api/server/jobs. The signature (x-chute-signature: t=<unix seconds>,v1=<hex
// HMAC-SHA256 of "<t>.<body>"> keyed by webhookSecret) is made at each attempt, with the time of that attempt.
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { Db } from '../../db/schema/tables.js';
import { toIso } from '../../lib/clock.js';
import { newId } from '../../lib/security/ids.js';
import { rawLink } from '../../lib/text/links.js';
import { outboundRequest, type OutboundResponse } from '../../lib/outbound-http.js';
import { formatByteSize } from '../../lib/text/sizes.js';
import type { FileDto } from '../../schemas/file.js';
import type { UrlDto } from '../../schemas/url.js';
import { enqueueJobs, PermanentJobError, type NewJob } from './jobs.js';
import { publicThumbnailName } from '../media/thumbnail-names.js';

export const WEBHOOK_JOB = 'webhook';
export const DISCORD_WEBHOOK_JOB = 'discord-webhook';
/** Attempts of one delivery: the waits between them are 10 s, 20 s, 40 s and 80 s (services/operations/jobs.ts backoff). */
export const WEBHOOK_MAX_ATTEMPTS = 5;
/** What is read of a receiver's answer (for the job's error text); the rest is dropped. */
const MAX_ANSWER_BYTES = 4096;
/** What of a failing receiver's answer goes into the job's error. */
const ANSWER_EXCERPT = 300;

export const SIGNATURE_HEADER = 'x-chute-signature';

export type WebhookEventName = 'upload' | 'shorten';

/** The body of a delivery: the same for every receiver and every attempt of one event. */
export interface WebhookEvent {
  /** The event's id: receivers can drop a delivery they already had (a retry after a lost answer). */
  id: string;
  event: WebhookEventName;
  timestamp: string;
  user: { id: string; username: string } | null;
  /** upload: the file as GET /api/user/files/<id> answers it. */
  file?: FileDto;
  /** shorten: the URL as GET /api/user/urls/<id> answers it. */
  url?: UrlDto;
  links: { url: string; raw?: string };
}

export type NewWebhookEvent = Omit<WebhookEvent, 'id' | 'timestamp' | 'user'>;

const EventShape = z.looseObject({
  id: z.string(),
  event: z.enum(['upload', 'shorten']),
  timestamp: z.string(),
  links: z.looseObject({ url: z.string(), raw: z.string().optional() }),
});

const WebhookPayload = z.object({ url: z.string(), event: EventShape });
const DiscordPayload = z.object({ baseUrl: z.string(), event: EventShape });

/** The hex HMAC-SHA256 of "<t>.<body>" keyed by `secret`: v1 of the x-chute-signature header. */
export function webhookSignature(secret: string, t: number, body: string): string {
  return createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
}

/** Whether an event of this kind goes anywhere (so that the caller can skip building it). */
export function webhooksWanted(ctx: Pick<AppContext, 'settings'>, event: WebhookEventName): boolean {
  const s = ctx.settings.get();
  const on = event === 'upload' ? s.webhookOnUpload : s.webhookOnShorten;
  return on && (s.webhookUrls.length > 0 || s.discordWebhookUrl !== null);
}

/**
 * Queues the deliveries of the events of user `userId` in the caller's transaction: one job per receiver and event,
 * so that a failing receiver is retried alone. `baseUrl` is where the links point (the Discord embed's thumbnail is
 * made from it).
 */
export async function queueWebhooks(
  ctx: AppContext,
  db: Db,
  baseUrl: string,
  userId: string,
  events: NewWebhookEvent[],
): Promise<number> {
  const wanted = events.filter((e) => webhooksWanted(ctx, e.event));
  if (wanted.length === 0) return 0;
  const s = ctx.settings.get();
  const now = ctx.clock.now();
  const user =
    (await db.selectFrom('users').select(['id', 'username']).where('id', '=', userId).executeTakeFirst()) ?? null;
  const jobs: NewJob[] = [];
  for (const input of wanted) {
    const event: WebhookEvent = { id: newId(), timestamp: toIso(now), user, ...input };
    for (const url of s.webhookUrls) {
      jobs.push({ kind: WEBHOOK_JOB, payload: { url, event }, maxAttempts: WEBHOOK_MAX_ATTEMPTS });
    }
    if (s.discordWebhookUrl !== null) {
      jobs.push({ kind: DISCORD_WEBHOOK_JOB, payload: { baseUrl, event }, maxAttempts: WEBHOOK_MAX_ATTEMPTS });
    }
  }
  await enqueueJobs(db, now, jobs);
  return jobs.length;
}

function parsePayload<S extends z.ZodType>(schema: S, payload: unknown): z.output<S> {
  const parsed = schema.safeParse(payload);
  if (!parsed.success) throw new PermanentJobError('not a webhook delivery: its payload has the wrong shape');
  return parsed.data;
}

/** POSTs `body` to `url` within WEBHOOK_TIMEOUT; any answer but 2xx fails the attempt (most 4xx for good). */
async function post(
  ctx: AppContext,
  url: string,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<OutboundResponse> {
  const answer = await outboundRequest(
    url,
    { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body },
    { timeoutMs: ctx.config.WEBHOOK_TIMEOUT * 1000, maxResponseBytes: MAX_ANSWER_BYTES, signal },
  );
  if (answer.status >= 200 && answer.status < 300) return answer;
  const excerpt = answer.body.slice(0, ANSWER_EXCERPT).trim();
  const message = `the receiver answered ${answer.status}${excerpt ? `: ${excerpt}` : ''}`;
  // A request the receiver refuses as such will be refused again; a timeout (408), "too early" or a rate limit not.
  const permanent = answer.status >= 400 && answer.status < 500 && ![408, 425, 429].includes(answer.status);
  throw permanent ? new PermanentJobError(message) : new Error(message);
}

/** Job handler: one signed delivery of an event to one of the webhookUrls. */
export async function deliverWebhook(ctx: AppContext, payload: unknown, signal: AbortSignal): Promise<void> {
  const { url, event } = parsePayload(WebhookPayload, payload);
  const s = ctx.settings.get();
  if (!s.webhookUrls.includes(url)) {
    ctx.log.info({ url, event: event.id }, 'webhook not sent: its URL was removed from webhookUrls since');
    return;
  }
  const body = JSON.stringify(event);
  const headers: Record<string, string> = { 'x-chute-event': event.event, 'x-chute-delivery': event.id };
  if (s.webhookSecret !== null) {
    const t = Math.floor(ctx.clock.now() / 1000);
    headers[SIGNATURE_HEADER] = `t=${t},v1=${webhookSignature(s.webhookSecret, t, body)}`;
  }
  await post(ctx, url, body, headers, signal);
}

/** Job handler: the Discord message of an event, to discordWebhookUrl. */
export async function deliverDiscordWebhook(ctx: AppContext, payload: unknown, signal: AbortSignal): Promise<void> {
  const { baseUrl, event } = parsePayload(DiscordPayload, payload);
  const target = ctx.settings.get().discordWebhookUrl;
  if (target === null) {
    ctx.log.info({ event: event.id }, 'Discord webhook not sent: discordWebhookUrl was cleared since');
    return;
  }
  const message = await discordMessage(ctx, baseUrl, event as unknown as WebhookEvent);
  await post(ctx, target, JSON.stringify(message), {}, signal);
}

/** Discord's blurple. */
const EMBED_COLOR = 0x5865f2;

interface DiscordEmbed {
  title: string;
  url: string;
  description: string;
  color: number;
  timestamp: string;
  footer: { text: string };
  thumbnail?: { url: string };
}

/** A Discord webhook message: one embed with the link and, for a file anyone may see, its thumbnail. */
export async function discordMessage(
  ctx: AppContext,
  baseUrl: string,
  event: WebhookEvent,
): Promise<{ username: string; allowed_mentions: { parse: [] }; embeds: DiscordEmbed[] }> {
  const siteTitle = ctx.settings.get().siteTitle;
  const by = event.user ? ` by ${event.user.username}` : '';
  const embed: DiscordEmbed = {
    title: event.file ? clip(event.file.name, 256) : `Short URL ${clip(event.links.url, 240)}`,
    url: event.links.url,
    description: event.file
      ? `${event.file.type}, ${formatByteSize(event.file.size)}, uploaded${by}`
      : `Shortened${by}: ${clip(event.url?.destination ?? '', 3800)}`,
    color: EMBED_COLOR,
    timestamp: event.timestamp,
    footer: { text: clip(siteTitle, 2048) },
  };
  const thumbnail = event.file ? await thumbnailLink(ctx, baseUrl, event.file.id) : null;
  if (thumbnail) embed.thumbnail = { url: thumbnail };
  return { username: clip(siteTitle, 80), allowed_mentions: { parse: [] }, embeds: [embed] };
}

/**
 * The public picture of a file, read at delivery (its thumbnail may have been made since the upload): the thumbnail
 * once made, else the image itself; none for a file with a password, a private one, or one deleted since.
 */
async function thumbnailLink(ctx: AppContext, baseUrl: string, fileId: string): Promise<string | null> {
  const row = await ctx.db
    .selectFrom('files')
    .select(['name', 'type', 'password', 'private', 'thumbnail_key'])
    .where('id', '=', fileId)
    .executeTakeFirst();
  if (!row || row.password !== null || row.private === 1) return null;
  if (row.thumbnail_key !== null) return rawLink(baseUrl, publicThumbnailName(fileId));
  if (row.type.startsWith('image/')) return rawLink(baseUrl, row.name);
  return null;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
