// Folder names with their path ("Parent / Child") for the folder pickers of the Files page.
import { useMemo } from 'react';
import type { Folder } from './types';

/** A function from a folder to its "Parent / Child" name. */
export function useFolderLabels(folders: Folder[] | undefined): (folder: Folder) => string {
  return useMemo(() => {
    const byId = new Map((folders ?? []).map((f) => [f.id, f]));
    const labels = new Map<string, string>();
    const label = (folder: Folder): string => {
      const known = labels.get(folder.id);
      if (known) return known;
      const names = [folder.name];
      const seen = new Set([folder.id]);
      const parentOf = (f: Folder) => (f.parentId ? byId.get(f.parentId) : undefined);
      // `seen` guards against a loop in the data, which would otherwise never end.
      for (let parent = parentOf(folder); parent && !seen.has(parent.id); parent = parentOf(parent)) {
        seen.add(parent.id);
        names.unshift(parent.name);
      }
      const text = names.join(' / ');
      labels.set(folder.id, text);
      return text;
    };
    return label;
  }, [folders]);
}
