/**
 * The built-in interpreters: Lua RICs shipped in the repository under
 * `interpreters/<group>/<version>/<Kind>/customizations.yaml`. Read through src/assets.ts, which serves
 * them from the package root in a checkout and from the bundle in a build; `setEmbeddedBuiltins`
 * replaces them (tests, embedders).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listAssets, readAsset } from '../assets.js';
import { parseDocuments } from '../io/documents.js';
import { isRIC } from './ric.js';
import type { RIC } from './types.js';

let embedded: RIC[] | null = null;
let loaded: RIC[] | null = null;

/** Replaces the built-ins (e.g. with a set a bundle or a test supplies). */
export function setEmbeddedBuiltins(rics: RIC[]): void {
  embedded = rics;
  loaded = null;
}

/** Every customizations.yaml below `dir`, sorted by path. */
export function findCustomizationFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name === 'customizations.yaml') out.push(full);
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

function ricsOf(text: string, file: string): RIC[] {
  return parseDocuments(text, file)
    .map((d) => d.object)
    .filter(isRIC) as RIC[];
}

/** Reads the RICs of customizations files; other documents in them are ignored. */
export function loadCustomizationFiles(files: string[]): RIC[] {
  return files.flatMap((f) => ricsOf(readFileSync(f, 'utf8'), f));
}

/** The built-in RICs (cached). No `interpreters/` means none. */
export function builtinCustomizations(): RIC[] {
  if (embedded) return embedded;
  if (loaded) return loaded;
  loaded = listAssets('interpreters')
    .filter((p) => p.endsWith('/customizations.yaml'))
    .flatMap((p) => ricsOf(readAsset(p), p));
  return loaded;
}
