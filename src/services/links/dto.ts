// The ShortUrl shape of the API (schemas/url.ts), mapped from records.
import type { AppContext } from '../../context.js';
import type { UrlRow } from '../../db/schema/tables.js';
import { toIso } from '../../lib/clock.js';
import type { UrlDto } from '../../schemas/url.js';

export function toUrlDto(ctx: Pick<AppContext, 'views'>, row: UrlRow, link: (slug: string) => string): UrlDto {
  return {
    id: row.id,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    code: row.code,
    vanity: row.vanity,
    destination: row.destination,
    views: row.views + ctx.views.of('urls', row.id),
    maxViews: row.max_views,
    passwordProtected: row.password !== null,
    enabled: row.enabled === 1,
    userId: row.user_id,
    url: link(row.vanity ?? row.code),
  };
}
