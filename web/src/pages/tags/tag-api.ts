// The tag calls of the Tags page (src/routes/organise/tags.ts); the Tag shape is in api/types.ts.
import { ApiRequestError, request, type ApiBody } from '../../api/client';
import type { Tag } from '../../api/types';
import { errorMessage } from '../../lib/notify';

export type TagInput = ApiBody<'/api/user/tags/{id}', 'patch'>;

/** Mantine's palette (shade 6), offered as swatches; a new tag takes the next one in turn. */
export const TAG_SWATCHES = [
  '#228be6',
  '#12b886',
  '#fab005',
  '#fa5252',
  '#7950f2',
  '#fd7e14',
  '#15aabf',
  '#e64980',
  '#40c057',
  '#be4bdb',
  '#4c6ef5',
  '#82c91e',
  '#868e96',
];

export const HEX_COLOR_RE = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export function listTags(signal: AbortSignal): Promise<Tag[]> {
  return request('get', '/api/user/tags', { signal });
}

/** A new tag; without a color the server picks one. */
export function createTag(input: ApiBody<'/api/user/tags', 'post'>): Promise<Tag> {
  return request('post', '/api/user/tags', { body: input });
}

export function updateTag(id: string, patch: TagInput): Promise<Tag> {
  return request('patch', '/api/user/tags/{id}', { params: { id }, body: patch });
}

export function deleteTag(id: string): Promise<Tag> {
  return request('delete', '/api/user/tags/{id}', { params: { id } });
}

/** The name is taken by another of the person's tags (1033 on create, 1034 on rename). */
export function isNameTaken(err: unknown): boolean {
  return err instanceof ApiRequestError && (err.code === 1033 || err.code === 1034);
}

/** A refusal in words (a tag deleted meanwhile, in another tab). */
export function tagErrorMessage(err: unknown): string {
  if (err instanceof ApiRequestError && err.code === 9002)
    return 'That tag no longer exists. Reload the page to see your tags as they are now.';
  return errorMessage(err);
}
