#!/usr/bin/env node
// Launcher of `npx karmada-lite`. It runs the esbuild bundle dist/karmada-lite.mjs when that is current
// (built after every source and asset it embeds was last changed): it starts in a fraction of a second,
// where compiling the TypeScript sources through tsx takes seconds. In a checkout with newer sources,
// or no build, it runs the sources, so edits take effect at once. KARMADA_LITE_USE_BUNDLE=1 forces the
// bundle, KARMADA_LITE_USE_BUNDLE=0 the sources.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'cli', 'entry.ts');
const bundle = join(root, 'dist', 'karmada-lite.mjs');

/** What the bundle is built from: the sources, the embedded assets, the bundler and the dependencies. */
const INPUTS = ['src', 'interpreters', 'schemas', 'scripts/bundle.mjs', 'package-lock.json'];

function newestInput() {
  let newest = 0;
  const visit = (p) => {
    let st;
    try {
      st = statSync(p);
    } catch {
      return;
    }
    newest = Math.max(newest, st.mtimeMs);
    if (st.isDirectory()) for (const name of readdirSync(p)) visit(join(p, name));
  };
  for (const p of INPUTS) visit(join(root, p));
  return newest;
}

function useBundle() {
  const forced = process.env.KARMADA_LITE_USE_BUNDLE;
  if (forced) return forced !== '0';
  if (!existsSync(source)) return true;
  if (!existsSync(bundle)) return false;
  return statSync(bundle).mtimeMs >= newestInput();
}

if (useBundle()) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(source).href);
}
