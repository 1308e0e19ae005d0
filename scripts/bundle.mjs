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
 * Optional dependencies that are not installed (ws's bufferutil and utf-8-validate, node-fetch's encoding:
 * native addons or extras) are looked up with a guarded require() when their package loads. esbuild leaves
 * such a require() in the bundle, so the binary would search the disk for them at run time; in the
 * standalone executable that require() is Node's embedder require, which prints a four-line warning for
 * any module that is not built in. Each one is resolved at build time to a module that fails the way a
 * missing package does, so the guard takes its fallback and nothing is searched for.
 */
const absentOptionalDependencies = {
  name: 'absent-optional-dependencies',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.kind !== 'require-call' || args.pluginData === 'absent-check' || args.path.startsWith('node:')) return undefined;
      const found = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'absent-check' });
      if (found.errors.length === 0) return undefined;
      return { path: args.path, namespace: 'absent' };
    });
    build.onLoad({ filter: /.*/, namespace: 'absent' }, (args) => ({
      contents: `throw Object.assign(new Error(${JSON.stringify(`Cannot find module '${args.path}' (not bundled into karmada-lite)`)}), { code: 'MODULE_NOT_FOUND' });`,
      loader: 'js',
    }));
  },
};

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
      plugins: [absentOptionalDependencies],
      ...(format === 'esm' ? { banner: { js: `${shebang ? '#!/usr/bin/env node\n' : ''}${esmRequire}` } } : {}),
    },
  };
}
