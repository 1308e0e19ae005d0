#!/usr/bin/env node
// Launcher: in a source checkout it runs the TypeScript sources (so edits take effect at once); where
// only the build is shipped it runs the esbuild bundle.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'cli', 'entry.ts');
if (existsSync(source) && !process.env.KARMADA_LITE_USE_BUNDLE) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(source).href);
} else {
  await import(pathToFileURL(join(root, 'dist', 'karmada-lite.mjs')).href);
}
