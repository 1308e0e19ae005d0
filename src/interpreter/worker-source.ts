/**
 * The interpreter worker's code as one CommonJS script, which the pool starts with `eval: true`. One way
 * for every form karmada-lite runs in: the standalone executable has no file a Worker could load (its
 * code lives inside the binary), so `npm run build` embeds the worker's bundle as a string
 * (scripts/bundle.mjs); from a checkout (tsx, vitest) it is bundled on first use with esbuild, a
 * dev dependency, so that tests run the worker exactly as it ships.
 */
import { createRequire } from 'node:module';
import { checkoutPath } from '../assets.js';

declare const __KARMADA_LITE_INTERPRETER_WORKER__: string | undefined;

let source: string | undefined = typeof __KARMADA_LITE_INTERPRETER_WORKER__ === 'string' ? __KARMADA_LITE_INTERPRETER_WORKER__ : undefined;

export function interpreterWorkerSource(): string {
  if (source !== undefined) return source;
  // Only reached from a checkout: the bundles define the constant above.
  const entry = checkoutPath('src/interpreter/worker.ts');
  const load = createRequire(checkoutPath('package.json'));
  const esbuild = load('esbuild') as typeof import('esbuild');
  const out = esbuild.buildSync({ entryPoints: [entry], bundle: true, platform: 'node', target: 'node20', format: 'cjs', write: false, legalComments: 'none', logLevel: 'error', minifySyntax: true });
  // (The same options as scripts/bundle.mjs's interpreterWorker(), which embeds it in the bundles.)
  source = out.outputFiles[0]!.text;
  return source;
}
