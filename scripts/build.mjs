#!/usr/bin/env node
/**
 * npm run build:
 *   dist/karmada-lite.mjs  one ES module with every dependency and asset inside (needs Node.js 20+)
 *   dist/karmada-lite      a standalone executable (Node's single executable application), needs nothing
 * Assets (built-in interpreters, schemas) are embedded through src/assets.ts.
 */
import { build, transform } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, chmodSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { bundleOptions, root } from './bundle.mjs';

// KARMADA_LITE_DIST builds elsewhere (tests of concurrent sessions must not replace each other's binary).
const dist = process.env.KARMADA_LITE_DIST ? resolve(process.env.KARMADA_LITE_DIST) : join(root, 'dist');
const entry = join(root, 'src/cli/entry.ts');

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
const started = Date.now();
const esm = bundleOptions(entry, 'esm');
// Split: every module a command loads with import() becomes a chunk beside the entry, read only by the
// runs that need it (`webhook` never reads the 13 MB of client-node). Chunks sit in dist/ itself, so paths
// a module derives from import.meta.url are those of the unsplit bundle.
await build({ ...esm.options, splitting: true, outdir: dist, entryNames: 'karmada-lite', chunkNames: 'karmada-lite-[hash]', outExtension: { '.js': '.mjs' } });
chmodSync(join(dist, 'karmada-lite.mjs'), 0o755);

// Node 20's single executable applications run one CommonJS script and cannot import() a module. One
// script with everything in it costs every run the memory of compiling all of it (the webhook peaked at
// 177 MB against 100 with the split .mjs), so the executable carries the same split: each chunk of an ES
// module build, turned into CommonJS, is a SEA asset, and the main script is a loader that compiles a
// chunk when a require() (a static or dynamic import of the ES build) first asks for it.
const seaDir = join(dist, 'sea');
const seaChunks = join(seaDir, 'chunks');
mkdirSync(seaChunks, { recursive: true });
const split = await build({ ...esm.options, banner: {}, splitting: true, outdir: seaChunks, entryNames: 'main', chunkNames: '[hash]', write: false });
const assets = {};
for (const out of split.outputFiles) {
  // An import of another chunk becomes require('./HASH.js'), which the loader serves from the assets;
  // a dynamic import() becomes a require() behind a resolved promise, so a chunk is read when it is used.
  // The chunks' own warnings were reported by the build above (or are silenced in bundle.mjs: import.meta
  // is dead code in a bundle); a transform of the output would report them again, as lines of <stdin>.
  const cjs = await transform(out.text, { format: 'cjs', platform: 'node', target: 'node20', supported: { 'dynamic-import': false }, logLevel: 'error', minifySyntax: true });
  const name = relative(seaChunks, out.path);
  writeFileSync(out.path, cjs.code);
  assets[name] = out.path;
}
if (!assets['main.js']) throw new Error(`the split build made no main.js in ${seaChunks}: ${Object.keys(assets).join(', ')}`);
const seaMain = join(seaDir, 'karmada-lite.cjs');
writeFileSync(seaMain, `'use strict';\n(${seaChunkLoader.toString()})();\n`);
const seaConfig = join(seaDir, 'sea-config.json');
writeFileSync(seaConfig, JSON.stringify({ main: seaMain, output: join(seaDir, 'sea-prep.blob'), disableExperimentalSEAWarning: true, useCodeCache: false, assets }));
execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { stdio: 'inherit' });
const exe = join(dist, 'karmada-lite');
copyFileSync(process.execPath, exe);
chmodSync(exe, 0o755);
execFileSync(process.execPath, [join(root, 'node_modules/postject/dist/cli.js'), exe, 'NODE_SEA_BLOB', join(seaDir, 'sea-prep.blob'), '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'], { stdio: 'pipe' }); // LIEF's section-name warnings are noise; a failure still throws with its output.
rmSync(seaDir, { recursive: true, force: true });

/**
 * The executable's main script (serialized with toString, so it may use nothing from this file): the
 * chunks as CommonJS modules, each compiled on its first require(). Node's built-in modules come from the
 * executable's own require(), the only modules it can load.
 */
function seaChunkLoader() {
  const { getAsset } = require('node:sea');
  const { compileFunction } = require('node:vm');
  const { dirname } = require('node:path');
  const modules = new Map();
  const dir = dirname(process.execPath);
  const chunkRequire = (id) => (id.startsWith('./') ? load(id.slice(2)) : require(id));
  function load(name) {
    const known = modules.get(name);
    if (known) return known.exports;
    const module = { exports: {} };
    modules.set(name, module);
    const fn = compileFunction(getAsset(name, 'utf8'), ['exports', 'require', 'module', '__filename', '__dirname'], { filename: `karmada-lite/${name}` });
    fn.call(module.exports, module.exports, chunkRequire, module, process.execPath, dir);
    return module.exports;
  }
  load('main.js');
}

const mb = (p) => (statSync(p).size / 1048576).toFixed(1);
console.log(`built in ${((Date.now() - started) / 1000).toFixed(1)}s: ${relative(root, dist) || '.'}/karmada-lite.mjs ${mb(join(dist, 'karmada-lite.mjs'))} MiB, ${relative(root, exe)} ${mb(exe)} MiB (${esm.assetCount} embedded assets)`);
