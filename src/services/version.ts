// The running version: the version of Chute's package.json, found once by walking up from this module (the same
// from src/ under tsx and from dist/ when built).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function runningVersion(): string {
  if (cached !== undefined) return cached;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'chute' && typeof pkg.version === 'string') return (cached = pkg.version);
    } catch {
      // not here: one folder up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return (cached = 'unknown');
    dir = parent;
  }
}
