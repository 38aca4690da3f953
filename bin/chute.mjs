#!/usr/bin/env node
// The `chute` command (docs/operations.md#the-chute-command). In a checkout it runs the TypeScript sources through
// tsx, as `npm run dev` runs the server; in an installation without them (the container image) it runs the build.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = `${root}src/cli/main.ts`;
const built = `${root}dist/src/cli/main.js`;

async function tsxAvailable() {
  try {
    const { register } = await import('tsx/esm/api');
    register();
    return true;
  } catch {
    return false;
  }
}

if (existsSync(source) && (await tsxAvailable())) {
  await import(pathToFileURL(source).href);
} else if (existsSync(built)) {
  await import(pathToFileURL(built).href);
} else {
  console.error('chute: neither the sources with tsx (npm install) nor the build (npm run build) are here');
  process.exit(1);
}
