/**
 * Summarises a V8 .cpuprofile of `node --cpu-prof dist/karmada-lite.mjs controller` (bench/controller.bench.ts
 * --cpu-prof DIR): self and inclusive time per function, each function attributed to its source module through
 * the `// src/...` markers esbuild leaves in the bundle.
 *
 *   npx tsx bench/controller-profile.ts DIR/CPU.*.cpuprofile [--top 30] [--bundle $KARMADA_LITE_DIST/karmada-lite.mjs]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: flags, positionals } = parseArgs({
  options: { top: { type: 'string', default: '30' }, bundle: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
  allowPositionals: true,
});
if (flags.help || positionals.length !== 1) {
  process.stdout.write('Usage: npx tsx bench/controller-profile.ts FILE.cpuprofile [--top N] [--bundle karmada-lite.mjs]\n');
  process.exit(flags.help ? 0 : 2);
}

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
const prof = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

// Line -> source module of the bundle, from esbuild's `// src/kube/store.ts` comments.
const bundles = new Map<string, Array<[number, string]>>();
function moduleOf(url: string, line: number): string {
  if (!url) return '';
  const file = flags.bundle ?? url.replace(/^file:\/\//, '');
  if (!/karmada-lite\.mjs$/.test(file)) return path.basename(url);
  let marks = bundles.get(file);
  if (!marks) {
    marks = [];
    try {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((l, i) => {
          const m = /^\/\/ ((?:src|node_modules|interpreters)\/\S+)$/.exec(l);
          if (m) marks!.push([i, m[1]!]);
        });
    } catch {
      /* the bundle moved: no modules */
    }
    bundles.set(file, marks);
  }
  let lo = 0;
  let hi = marks.length - 1;
  let best = '';
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (marks[mid]![0] <= line) {
      best = marks[mid]![1];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return best.replace(/^node_modules\//, 'nm:');
}

const byId = new Map<number, Node>();
const parent = new Map<number, number>();
for (const n of prof.nodes) {
  byId.set(n.id, n);
  for (const c of n.children ?? []) parent.set(c, n.id);
}
const keyOf = (n: Node) => {
  const f = n.callFrame;
  if (!f.url) return f.functionName || '(anonymous)';
  return `${f.functionName || '(anonymous)'}  ${moduleOf(f.url, f.lineNumber)}`;
};

const self = new Map<string, number>();
const incl = new Map<string, number>();
const modSelf = new Map<string, number>();
let total = 0;
for (let i = 0; i < prof.samples.length; i++) {
  const dt = prof.timeDeltas[i] ?? 0;
  total += dt;
  const n = byId.get(prof.samples[i]!)!;
  const k = keyOf(n);
  self.set(k, (self.get(k) ?? 0) + dt);
  const mod = n.callFrame.url ? moduleOf(n.callFrame.url, n.callFrame.lineNumber) || '(bundle)' : n.callFrame.functionName;
  modSelf.set(mod, (modSelf.get(mod) ?? 0) + dt);
  const seen = new Set<string>();
  for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
    const kk = keyOf(byId.get(id)!);
    if (seen.has(kk)) continue;
    seen.add(kk);
    incl.set(kk, (incl.get(kk) ?? 0) + dt);
  }
}

const top = Number(flags.top);
const idle = self.get('(idle)') ?? 0;
const pr = (title: string, m: Map<string, number>, base: number) => {
  process.stdout.write(`\n${title}\n`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${(v / 1e6).toFixed(2).padStart(8)} s ${((100 * v) / base).toFixed(1).padStart(5)}%  ${k}\n`);
};
process.stdout.write(`profile ${positionals[0]}: ${(total / 1e6).toFixed(1)} s sampled, (idle) ${(idle / 1e6).toFixed(1)} s = ${((100 * idle) / total).toFixed(0)}%; busy ${((total - idle) / 1e6).toFixed(1)} s\n`);
self.delete('(idle)');
incl.delete('(idle)');
incl.delete('(root)');
modSelf.delete('(idle)');
pr('Self time by source module (% of busy time)', modSelf, total - idle);
pr('Self time by function (% of busy time)', self, total - idle);
pr('Inclusive time by function (% of busy time)', incl, total - idle);
