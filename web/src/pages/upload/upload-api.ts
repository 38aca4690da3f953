// The calls of the Upload page besides the uploads themselves (transport.ts): the assemblies of chunked uploads
// (src/routes/incomplete-files.ts).
import { api } from '../../api/client';
import type { IncompleteFileDto } from '../../../../src/schemas/partial-upload';

export type IncompleteFile = IncompleteFileDto;
export type AssemblyStatus = IncompleteFileDto['status'];

export function listIncompleteFiles(signal?: AbortSignal): Promise<IncompleteFile[]> {
  return api<IncompleteFile[]>('/api/user/files/incomplete', { signal });
}

/** Removes finished records from the list. */
export function dismissIncompleteFiles(ids: string[]): Promise<unknown> {
  return api('/api/user/files/incomplete', { method: 'DELETE', body: { id: ids } });
}
