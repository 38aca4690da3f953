// The files area: serving stored files and share links to anyone (/raw, /r, /u, /view, /s), and the caller's files
// (/api/user/files: list, edit, delete, their bytes, share links, password unlocks).
import { registerRouteGroups } from '../../http/auth.js';
import type { AreaPlugin } from '../../http/types.js';
import { fileServingRoutes } from './files.js';
import { shareManagementRoutes, shareRoutes } from './shares.js';
import { fileUnlockRoutes, userFilesRoutes } from './user-files.js';

export const filesArea: AreaPlugin = async (app, { ctx }) => {
  await registerRouteGroups(app, ctx, [
    // Serving tells a private file's owner by their credentials itself.
    { prefix: '', access: 'anyone', routes: [fileServingRoutes, shareRoutes] },
    { prefix: '/api/user', access: 'user', routes: [userFilesRoutes, shareManagementRoutes] },
    { prefix: '/api/user', access: 'optional-user', routes: [fileUnlockRoutes] },
  ]);
};
