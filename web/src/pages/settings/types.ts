// The session shapes the settings page reads: the server's own (src/schemas/user.ts), imported as types.
import type { SessionDto, SessionListDto } from '../../../../src/schemas/user';

/** A login session as GET /api/user/sessions lists it; client and device are the server's reading of the ua. */
export type SessionInfo = SessionDto;
/** GET and DELETE /api/user/sessions: the caller's own session (null when signed in with the API token) and the rest. */
export type SessionList = SessionListDto;
