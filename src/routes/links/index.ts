// The links area: the caller's short URLs (/api/user/urls), their password unlock, and following them (/go/<slug>,
// Zipline's /view/url/<id>).
import { registerRouteGroups } from '../../http/auth.js';
import type { AreaPlugin } from '../../http/types.js';
import { redirectRoutes } from './redirect.js';
import { urlRoutes, urlUnlockRoutes } from './urls.js';

export const linksArea: AreaPlugin = async (app, { ctx }) => {
  await registerRouteGroups(app, ctx, [
    { prefix: '/api/user', access: 'user', routes: [urlRoutes] },
    { prefix: '/api/user', access: 'anyone', routes: [urlUnlockRoutes] },
    { prefix: '', access: 'anyone', routes: [redirectRoutes] },
  ]);
};
