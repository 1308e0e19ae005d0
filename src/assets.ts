import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Files shipped with karmada-lite (built-in interpreters, schemas). From a source checkout they are read
 * from the package root; `npm run build` embeds them into the bundle through this constant, so the
 * single-file binary needs no files beside it.
 */
declare const __KARMADA_LITE_ASSETS__: Record<string, string> | undefined;

const embedded: Record<string, string> | undefined = typeof __KARMADA_LITE_ASSETS__ === 'undefined' ? undefined : __KARMADA_LITE_ASSETS__;

let packageRoot: string | undefined;
function root(): string {
  // src/assets.ts -> the package root is one level up.
  packageRoot ??= join(fileURLToPath(new URL('.', import.meta.url)), '..');
  return packageRoot;
}

/** Paths (with `/` separators, relative to the package root) of every asset below `dir`, sorted. */
export function listAssets(dir: string): string[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  if (embedded) return Object.keys(embedded).filter((p) => p.startsWith(prefix)).sort();
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const name of readdirSync(abs).sort()) {
      const full = join(abs, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push(relative(root(), full).split(sep).join('/'));
    }
  };
  try {
    walk(join(root(), dir));
  } catch {
    return [];
  }
  return out;
}

export function readAsset(path: string): string {
  if (embedded) {
    const text = embedded[path];
    if (text === undefined) throw new Error(`asset ${path} is not embedded in this build`);
    return text;
  }
  return readFileSync(join(root(), path), 'utf8');
}

/** An absolute path in the source checkout (for what only a checkout does, such as bundling the interpreter worker). */
export function checkoutPath(path: string): string {
  return join(root(), path);
}

/** Whether assets come from the bundle (true in dist/ builds). */
export const assetsEmbedded = embedded !== undefined;
