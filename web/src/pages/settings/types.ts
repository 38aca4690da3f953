// The session shapes the settings page reads: the server's own (api/openapi.d.ts).
import type { components } from '../../api/openapi';

/** A login session as GET /api/user/sessions lists it; client and device are the server's reading of the ua. */
export type SessionInfo = components['schemas']['Session'];
/** GET and DELETE /api/user/sessions: the caller's own session (null when signed in with the API token) and the rest. */
export type SessionList = components['schemas']['SessionList'];
