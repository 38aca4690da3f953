// Folder names with their path ("Parent / Child") for the folder pickers (Files, Upload, uploader configurations).
import { useMemo } from 'react';
import type { Folder } from '../api/types';

type FolderLink = Pick<Folder, 'id' | 'name' | 'parentId'>;

/** A function from a folder (one of `folders`) to its "Parent / Child" name. */
export function folderPaths<F extends FolderLink>(folders: readonly F[]): (folder: F) => string {
  const byId = new Map(folders.map((f) => [f.id, f]));
  const paths = new Map<string, string>();
  const parentOf = (f: FolderLink) => (f.parentId ? byId.get(f.parentId) : undefined);
  return (folder) => {
    const known = paths.get(folder.id);
    if (known) return known;
    const names = [folder.name];
    const seen = new Set([folder.id]);
    // `seen` guards against a loop in the data, which would otherwise never end.
    for (let parent = parentOf(folder); parent && !seen.has(parent.id); parent = parentOf(parent)) {
      seen.add(parent.id);
      names.unshift(parent.name);
    }
    const path = names.join(' / ');
    paths.set(folder.id, path);
    return path;
  };
}

/** The same, kept while `folders` stays the same list. */
export function useFolderPaths<F extends FolderLink>(folders: readonly F[] | undefined): (folder: F) => string {
  return useMemo(() => folderPaths(folders ?? []), [folders]);
}

/** Select choices: every folder by its path, sorted. */
export function folderOptions(folders: readonly FolderLink[]): Array<{ value: string; label: string }> {
  const path = folderPaths(folders);
  return folders.map((f) => ({ value: f.id, label: path(f) })).sort((a, b) => a.label.localeCompare(b.label));
}
