/**
 * Karmada's own binaries for bench/karmada.bench.ts, built from a source tree the user points at
 * (`--karmada-src DIR`) into a scratch folder outside the repository, one folder per source hash, so a
 * second run of the same tree starts at once.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The components the comparison runs, by binary name and the Go package that builds it. */
export const KARMADA_COMPONENTS = {
  'karmada-controller-manager': './cmd/controller-manager',
  'karmada-scheduler': './cmd/scheduler',
  'karmada-webhook': './cmd/webhook',
} as const;
export type KarmadaComponent = keyof typeof KARMADA_COMPONENTS;

export interface KarmadaBuild {
  src: string;
  /** What identifies the tree: its git commit when it is a checkout, else a hash of its Go sources. */
  id: string;
  dir: string;
  bin: Record<KarmadaComponent, string>;
  /** Whether this run built them (false: found in the cache). */
  built: boolean;
}

function walk(dir: string, out: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile()) out.push(p);
  }
}

/**
 * A checkout's commit (with a hash of its uncommitted diff when dirty); an exported tree (git archive has no
 * .git) a hash of what the three binaries are built from: cmd/, pkg/, go.mod, go.sum and vendor/modules.txt.
 */
export function sourceId(src: string): string {
  if (existsSync(path.join(src, '.git'))) {
    const head = spawnSync('git', ['-C', src, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
    if (head.status === 0) {
      const diff = spawnSync('git', ['-C', src, 'diff', 'HEAD'], { encoding: 'utf8', maxBuffer: 1 << 30 });
      const dirty = diff.stdout ? `-dirty-${createHash('sha256').update(diff.stdout).digest('hex').slice(0, 12)}` : '';
      return `git-${head.stdout.trim().slice(0, 12)}${dirty}`;
    }
  }
  const files: string[] = [];
  for (const d of ['cmd', 'pkg']) if (existsSync(path.join(src, d))) walk(path.join(src, d), files);
  for (const f of ['go.mod', 'go.sum', 'vendor/modules.txt']) if (existsSync(path.join(src, f))) files.push(path.join(src, f));
  files.sort();
  const h = createHash('sha256');
  for (const f of files) h.update(path.relative(src, f)).update('\0').update(readFileSync(f)).update('\0');
  return `tree-${h.digest('hex').slice(0, 16)}`;
}

export function cacheRoot(): string {
  return path.resolve(process.env.KARMADA_LITE_KARMADA_BIN_CACHE ?? path.join(tmpdir(), 'karmada-lite-bench-karmada'));
}

/**
 * The three binaries of `src`, built with `go build -mod=vendor` (offline: the tree's vendor/ folder) when the
 * cache has no folder for its id. The build goes to a folder of its own first and is renamed into place, so an
 * interrupted build never looks finished. With `build` false only the paths (a run of karmada-lite alone).
 */
export function ensureKarmadaBuild(src: string, log: (s: string) => void, build = true): KarmadaBuild {
  const abs = path.resolve(src);
  if (!existsSync(path.join(abs, 'go.mod')) || !existsSync(path.join(abs, 'cmd', 'controller-manager'))) {
    throw new Error(`--karmada-src ${src}: not a Karmada source tree (no go.mod or cmd/controller-manager); point it at a checkout or an export of github.com/karmada-io/karmada`);
  }
  const id = sourceId(abs);
  const dir = path.join(cacheRoot(), id);
  const bin = Object.fromEntries(Object.keys(KARMADA_COMPONENTS).map((n) => [n, path.join(dir, n)])) as Record<KarmadaComponent, string>;
  if (!build || Object.values(bin).every((b) => existsSync(b) && statSync(b).size > 0)) return { src: abs, id, dir, bin, built: false };
  const vendored = existsSync(path.join(abs, 'vendor', 'modules.txt'));
  const tmp = `${dir}.building-${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  log(`building Karmada ${id} from ${abs} into ${dir} (${vendored ? 'go build -mod=vendor, offline' : 'no vendor/: go build fetches modules'}); minutes on 2 CPUs`);
  const t = performance.now();
  for (const [name, pkg] of Object.entries(KARMADA_COMPONENTS)) {
    const r = spawnSync('go', ['build', ...(vendored ? ['-mod=vendor'] : []), '-o', path.join(tmp, name), pkg], {
      cwd: abs,
      stdio: ['ignore', 'inherit', 'inherit'],
      // The tree's go.mod may name a newer patch release than the installed toolchain: build with the local one rather than download another.
      env: { ...process.env, GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? 'local', GOFLAGS: [process.env.GOFLAGS, '-buildvcs=false'].filter(Boolean).join(' ') },
    });
    if (r.status !== 0) throw new Error(`go build ${pkg} in ${abs} failed (exit ${r.status}); run it there to see why`);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  log(`built Karmada in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  return { src: abs, id, dir, bin, built: true };
}

/** The CRD manifests Karmada installs (its chart's bases: no kustomize patch, so no conversion webhook on the bindings). */
export function karmadaCrdFiles(src: string): string[] {
  const bases = path.join(path.resolve(src), 'charts', 'karmada', '_crds', 'bases');
  if (!existsSync(bases)) throw new Error(`--karmada-src ${src}: no charts/karmada/_crds/bases (Karmada's CRDs) in it`);
  const files: string[] = [];
  walk(bases, files);
  return files.filter((f) => f.endsWith('.yaml')).sort();
}
