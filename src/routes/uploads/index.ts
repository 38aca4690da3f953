// The uploads area: one request (POST /api/upload), chunks (POST /api/upload/partial), tus (/api/upload/tus) and the
// caller's chunked uploads still being assembled (/api/user/files/incomplete).
import { registerRouteGroups } from '../../http/auth.js';
import type { AreaPlugin } from '../../http/types.js';
import { TUS_PATH } from '../../http/uploads/tus.js';
import { incompleteFilesRoutes } from './incomplete-files.js';
import { uploadPartialRoutes } from './upload-partial.js';
import { uploadTusRoutes } from './upload-tus.js';
import { uploadRoutes } from './upload.js';

export const uploadsArea: AreaPlugin = async (app, { ctx }) => {
  await registerRouteGroups(app, ctx, [
    { prefix: '/api/upload', access: 'user-or-upload-folder', routes: [uploadRoutes, uploadPartialRoutes] },
    { prefix: TUS_PATH, access: 'anyone', routes: [uploadTusRoutes] },
    { prefix: '/api/user', access: 'user', routes: [incompleteFilesRoutes] },
  ]);
};
