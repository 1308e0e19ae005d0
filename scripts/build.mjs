#!/usr/bin/env node
/**
 * npm run build:
 *   dist/karmada-lite.mjs  one ES module with every dependency and asset inside (needs Node.js 20+)
 *   dist/karmada-lite      a standalone executable (Node's single executable application), needs nothing
 * Assets (built-in interpreters, schemas) are embedded through src/assets.ts.
 */
import { build } from 'esbuild';
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

// Node 20's single executable applications take a CommonJS script.
const seaDir = join(dist, 'sea');
mkdirSync(seaDir, { recursive: true });
await build({ ...bundleOptions(entry, 'cjs').options, outfile: join(seaDir, 'karmada-lite.cjs') });
const seaConfig = join(seaDir, 'sea-config.json');
writeFileSync(seaConfig, JSON.stringify({ main: join(seaDir, 'karmada-lite.cjs'), output: join(seaDir, 'sea-prep.blob'), disableExperimentalSEAWarning: true, useCodeCache: false }));
execFileSync(process.execPath, ['--experimental-sea-config', seaConfig], { stdio: 'inherit' });
const exe = join(dist, 'karmada-lite');
copyFileSync(process.execPath, exe);
chmodSync(exe, 0o755);
execFileSync(process.execPath, [join(root, 'node_modules/postject/dist/cli.js'), exe, 'NODE_SEA_BLOB', join(seaDir, 'sea-prep.blob'), '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'], { stdio: 'pipe' }); // LIEF's section-name warnings are noise; a failure still throws with its output.
rmSync(seaDir, { recursive: true, force: true });

const mb = (p) => (statSync(p).size / 1048576).toFixed(1);
console.log(`built in ${((Date.now() - started) / 1000).toFixed(1)}s: ${relative(root, dist) || '.'}/karmada-lite.mjs ${mb(join(dist, 'karmada-lite.mjs'))} MiB, ${relative(root, exe)} ${mb(exe)} MiB (${esm.assetCount} embedded assets)`);
