// /robots.txt, /manifest.json and the favicons, where Zipline serves them (each 404 while its setting is off), and
// Zipline's invite links /invite/<code>, which lead to the dashboard's registration page with the code.
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { RouteModule } from '../../http/types.js';
import { ApiError } from '../../lib/errors.js';
import { FAVICON_SIZES, faviconIco, faviconPng, robotsTxt, webManifest } from '../../services/serving/site-files.js';

const tags = ['server'];
const DAY = 86_400;

function sendIcon(reply: FastifyReply, type: string, body: Buffer): FastifyReply {
  return reply.header('cache-control', `public, max-age=${DAY}`).type(type).send(body);
}

export const siteFileRoutes: RouteModule = (app, ctx) => {
  app.get(
    '/robots.txt',
    {
      schema: {
        summary: 'Keeps crawlers away (User-Agent: * / Disallow: /) while siteRobotsTxt is on; 404 otherwise',
        tags,
      },
    },
    async (_request, reply) => {
      const text = robotsTxt(ctx.settings.get());
      if (text === null) throw new ApiError(9002, 'robots.txt is off (setting siteRobotsTxt)');
      return reply.header('cache-control', 'public, max-age=3600').type('text/plain; charset=utf-8').send(text);
    },
  );

  app.get(
    '/manifest.json',
    { schema: { summary: 'The web manifest (installable app) while sitePwaEnabled is on; 404 otherwise', tags } },
    async (_request, reply) => {
      const manifest = webManifest(ctx.settings.get());
      if (manifest === null) throw new ApiError(9002, 'the web manifest is off (setting sitePwaEnabled)');
      return reply
        .header('cache-control', 'no-cache')
        .type('application/manifest+json; charset=utf-8')
        .send(JSON.stringify(manifest));
    },
  );

  app.get('/favicon.ico', { schema: { summary: 'The site icon (16, 32 and 64 pixels)', tags } }, async (_r, reply) =>
    sendIcon(reply, 'image/x-icon', await faviconIco()),
  );

  app.get(
    '/favicon-:file',
    {
      schema: {
        summary: `The site icon as a PNG: /favicon-<size>x<size>.png, size ${FAVICON_SIZES.join(', ')}`,
        tags,
        params: z.object({ file: z.string().max(32) }),
      },
    },
    async (request, reply) => {
      const match = /^(\d+)x(\d+)\.png$/.exec(request.params.file);
      const size = Number(match?.[1]);
      if (!match || match[1] !== match[2] || !(FAVICON_SIZES as readonly number[]).includes(size)) {
        throw new ApiError(9002, `no icon favicon-${request.params.file}`);
      }
      return sendIcon(reply, 'image/png', await faviconPng(size as (typeof FAVICON_SIZES)[number]));
    },
  );

  app.get(
    '/invite/:code',
    {
      schema: {
        summary: "Zipline's invite link: 302 to the registration page with the code (/auth/register?code=)",
        tags,
        params: z.object({ code: z.string().min(1).max(200) }),
      },
    },
    async (request, reply) =>
      reply
        .code(302)
        .header('cache-control', 'no-store')
        .header('location', `/auth/register?code=${encodeURIComponent(request.params.code)}`)
        .send(),
  );
};
