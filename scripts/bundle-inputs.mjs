// What the bundle (dist/karmada-lite.mjs and the standalone dist/karmada-lite) is built from: the sources,
// the embedded assets, the bundler and the dependencies. The launcher (bin/karmada-lite.mjs) and the
// end-to-end tests' build step both ask whether a build is older than these. No imports beyond node: the
// launcher loads this on every start.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const BUNDLE_INPUTS = ['src', 'interpreters', 'schemas', 'scripts/bundle.mjs', 'package-lock.json'];

/** The newest mtime (ms) of any bundle input under the checkout `root`. */
export function newestBundleInput(root) {
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
  for (const p of BUNDLE_INPUTS) visit(join(root, p));
  return newest;
}
