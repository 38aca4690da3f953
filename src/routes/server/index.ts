// The server area: health and readiness, the version, statistics (statistics.ts), the settings, the job queue,
// maintenance, the instance's export and import, and the site's files (robots.txt, favicons, the web manifest).
import { registerRouteGroups } from '../../http/auth.js';
import type { AreaPlugin } from '../../http/types.js';
import { healthcheckRoutes } from './healthcheck.js';
import { readinessRoutes } from './readiness.js';
import { serverExportRoutes } from './server-export.js';
import { serverJobsRoutes } from './server-jobs.js';
import { serverMaintenanceRoutes } from './server-maintenance.js';
import { publicServerInfoRoutes, serverSettingsRoutes } from './server-settings.js';
import { siteFileRoutes } from './site-files.js';
import { metricsRoutes, serverStatsRoutes, statsSeriesRoutes } from './statistics.js';
import { versionRoutes } from './version.js';

export const serverArea: AreaPlugin = async (app, { ctx }) => {
  await registerRouteGroups(app, ctx, [
    { prefix: '/api', access: 'anyone', routes: [healthcheckRoutes, readinessRoutes] },
    { prefix: '/api', access: 'user', routes: [versionRoutes, statsSeriesRoutes] },
    { prefix: '/api/server', access: 'anyone', routes: [publicServerInfoRoutes] },
    {
      prefix: '/api/server',
      access: 'admin',
      routes: [serverSettingsRoutes, serverStatsRoutes, serverJobsRoutes, serverMaintenanceRoutes],
    },
    { prefix: '/api/server', access: 'superadmin', routes: [serverExportRoutes] },
    // Prometheus's scrape checks its own bearer token (metricsToken); the site's files are public.
    { prefix: '', access: 'anyone', routes: [metricsRoutes, siteFileRoutes] },
  ]);
};
