/**
 * The esbuild options every bundle of karmada-lite uses: the shipped binary (scripts/build.mjs) and the
 * benchmark that measures the code as it ships (bench/core.bench.ts). Assets (built-in interpreters,
 * schemas) are embedded through src/assets.ts.
 */
import { buildSync } from 'esbuild';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const root = new URL('..', import.meta.url).pathname;
const ASSET_DIRS = ['interpreters', 'schemas'];

let collected;
/** Read once per process: a build bundles twice (ES module and the executable's CommonJS). */
function collectAssets() {
  if (collected) return collected;
  const assets = {};
  const walk = (abs) => {
    for (const name of readdirSync(abs).sort()) {
      const full = join(abs, name);
      if (statSync(full).isDirectory()) walk(full);
      else assets[relative(root, full).split(sep).join('/')] = readFileSync(full, 'utf8');
    }
  };
  for (const d of ASSET_DIRS) {
    try { walk(join(root, d)); } catch { /* a missing asset dir embeds nothing */ }
  }
  collected = assets;
  return assets;
}

let workerSource;
/**
 * The interpreter worker (src/interpreter/worker.ts) as one CommonJS script, embedded in every bundle:
 * the pool starts it with `eval: true`, the one way that works in the standalone executable, which has
 * no file a Worker could load. Built once per process.
 */
function interpreterWorker() {
  workerSource ??= buildSync({
    entryPoints: [join(root, 'src/interpreter/worker.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    write: false,
    legalComments: 'none',
    logLevel: 'warning',
    // The worker never reads assets (its interpreter has no built-in layer): assets.ts's import.meta is dead code there.
    logOverride: { 'empty-import-meta': 'silent' },
    minifySyntax: true,
  }).outputFiles[0].text;
  return workerSource;
}

/**
 * esbuild options for one entry point in one format. An ES module gets the require() that bundled
 * CommonJS dependencies call, after a shebang when it is to be run as a command.
 */
export function bundleOptions(entry, format, { shebang = true } = {}) {
  const assets = collectAssets();
  const esmRequire = "import { createRequire as __klCreateRequire } from 'node:module';\nconst require = __klCreateRequire(import.meta.url);";
  return {
    assetCount: Object.keys(assets).length,
    options: {
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format,
      define: { __KARMADA_LITE_ASSETS__: JSON.stringify(assets), __KARMADA_LITE_INTERPRETER_WORKER__: JSON.stringify(interpreterWorker()) },
      legalComments: 'none',
      logLevel: 'warning',
      minifySyntax: true,
      ...(format === 'esm' ? { banner: { js: `${shebang ? '#!/usr/bin/env node\n' : ''}${esmRequire}` } } : {}),
    },
  };
}
