#!/usr/bin/env node
// Launcher of `npx karmada-lite`. It runs the esbuild bundle dist/karmada-lite.mjs when that is current
// (built after every source and asset it embeds was last changed): it starts in a fraction of a second,
// where compiling the TypeScript sources through tsx takes seconds. In a checkout with newer sources,
// or no build, it runs the sources, so edits take effect at once. KARMADA_LITE_USE_BUNDLE=1 forces the
// bundle, KARMADA_LITE_USE_BUNDLE=0 the sources.
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { newestBundleInput } from '../scripts/bundle-inputs.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'cli', 'entry.ts');
const bundle = join(root, 'dist', 'karmada-lite.mjs');

function useBundle() {
  const forced = process.env.KARMADA_LITE_USE_BUNDLE;
  if (forced) return forced !== '0';
  if (!existsSync(source)) return true;
  if (!existsSync(bundle)) return false;
  return statSync(bundle).mtimeMs >= newestBundleInput(root);
}

if (useBundle()) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(source).href);
}
