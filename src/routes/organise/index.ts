// The organise area: the caller's folders and tags (/api/user/folders, /api/user/tags, the tags of a file), and
// public folders for anyone (/folder/<id>, /api/folders/<id>: their page, JSON, zip and uploads).
import { registerRouteGroups } from '../../http/auth.js';
import type { AreaPlugin } from '../../http/types.js';
import { folderRoutes } from './folders.js';
import { publicFolderRoutes } from './public-folders.js';
import { tagRoutes } from './tags.js';

export const organiseArea: AreaPlugin = async (app, { ctx }) => {
  await registerRouteGroups(app, ctx, [
    { prefix: '/api/user', access: 'user', routes: [folderRoutes, tagRoutes] },
    { prefix: '', access: 'anyone', routes: [publicFolderRoutes] },
  ]);
};
