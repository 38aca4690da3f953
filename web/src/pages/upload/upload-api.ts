// The calls of the Upload page besides the uploads themselves (transport.ts): the assemblies of chunked uploads
// (src/routes/uploads/incomplete-files.ts).
import { request } from '../../api/client';
import type { components } from '../../api/openapi';

export type IncompleteFile = components['schemas']['IncompleteFile'];
export type AssemblyStatus = IncompleteFile['status'];

export function listIncompleteFiles(signal?: AbortSignal): Promise<IncompleteFile[]> {
  return request('get', '/api/user/files/incomplete', { signal });
}

/** Removes finished records from the list. */
export function dismissIncompleteFiles(ids: string[]): Promise<unknown> {
  return request('delete', '/api/user/files/incomplete', { body: { id: ids } });
}
