#!/usr/bin/env node
// Launcher for a source checkout: runs the esbuild bundle when it exists, the TypeScript sources otherwise.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundle = join(root, 'dist', 'karmada-lite.mjs');
if (existsSync(bundle) && !process.env.KARMADA_LITE_FROM_SOURCE) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(join(root, 'src', 'cli', 'entry.ts')).href);
}
