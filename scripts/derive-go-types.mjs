#!/usr/bin/env node
// Derives src/interpreter/go-types.ts, the encoding/json shape of the Kubernetes Go types the built-in
// interpreters return, from the field tags in k8s.io/api's and k8s.io/apimachinery's types.go.
//
//   node scripts/derive-go-types.mjs            # downloads the modules through the Go module proxy
//
// Only what the Go-JSON rule needs is kept (src/interpreter/go-json.ts): per struct, its fields that hold
// a struct, a map or a slice, with their element types and whether the tag says omitempty. Scalars, and
// types with their own JSON form (Time, Quantity, IntOrString, RawExtension…), are left out: the rule
// does not apply to them.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const K8S_VERSION = 'v0.34.4';

/** Package id (as the table names types) per Go import path, and the files read for it. */
const PACKAGES = {
  'k8s.io/api/core/v1': { id: 'core/v1', files: ['types.go'] },
  'k8s.io/api/apps/v1': { id: 'apps/v1', files: ['types.go'] },
  'k8s.io/api/batch/v1': { id: 'batch/v1', files: ['types.go'] },
  'k8s.io/api/networking/v1': { id: 'networking/v1', files: ['types.go'] },
  'k8s.io/api/policy/v1': { id: 'policy/v1', files: ['types.go'] },
  'k8s.io/api/autoscaling/v2': { id: 'autoscaling/v2', files: ['types.go'] },
  'k8s.io/apimachinery/pkg/apis/meta/v1': { id: 'meta/v1', files: ['types.go'] },
};

/** Struct types that marshal themselves (not as their fields). */
const OWN_JSON = new Set(['meta/v1.Time', 'meta/v1.MicroTime', 'meta/v1.Duration', 'meta/v1.FieldsV1']);

/**
 * Karmada's own result types (pkg/apis/work/v1alpha2/binding_types.go), tags copied as data:
 * ReplicaRequirements{nodeClaim *NodeClaim omitempty, resourceRequest ResourceList omitempty, namespace, priorityClassName},
 * NodeClaim{hardNodeAffinity *NodeSelector omitempty, nodeSelector map omitempty, tolerations []Toleration omitempty}.
 */
const KARMADA = {
  'work/v1alpha2.ReplicaRequirements': { nodeClaim: ['Swork/v1alpha2.NodeClaim', 1], resourceRequest: ['M', 1] },
  'work/v1alpha2.NodeClaim': { hardNodeAffinity: ['Score/v1.NodeSelector', 1], nodeSelector: ['M', 1], tolerations: ['LScore/v1.Toleration', 1] },
};

/** The types the built-in RICs name in their typed-output annotation; the table holds what they reach. */
const ROOTS = [
  'apps/v1.Deployment',
  'apps/v1.ReplicaSet',
  'apps/v1.StatefulSet',
  'apps/v1.DaemonSet',
  'batch/v1.Job',
  'batch/v1.CronJob',
  'core/v1.Pod',
  'core/v1.Service',
  'core/v1.ServiceAccount',
  'core/v1.PersistentVolume',
  'core/v1.PersistentVolumeClaim',
  'core/v1.Secret',
  'networking/v1.Ingress',
  'policy/v1.PodDisruptionBudget',
  'autoscaling/v2.HorizontalPodAutoscaler',
  'work/v1alpha2.ReplicaRequirements',
];

const SCALARS = new Set(['string', 'bool', 'byte', 'int', 'int32', 'int64', 'uint', 'uint32', 'uint64', 'float32', 'float64', 'any', 'interface{}']);

function moduleDir(mod) {
  const out = execFileSync('go', ['mod', 'download', '-json', `${mod}@${K8S_VERSION}`], { encoding: 'utf8', env: { ...process.env, GOFLAGS: '-mod=mod' } });
  return JSON.parse(out).Dir;
}

function dirOf(importPath) {
  if (importPath.startsWith('k8s.io/api/')) return join(apiDir, importPath.slice('k8s.io/api/'.length));
  return join(machineryDir, importPath.slice('k8s.io/apimachinery/'.length));
}

/** Per package: imports (alias → import path), structs (name → fields), named maps/slices/scalars. */
function parsePackage(importPath) {
  const pkg = { imports: new Map(), structs: new Map(), named: new Map() };
  for (const f of PACKAGES[importPath].files) {
    const text = readFileSync(join(dirOf(importPath), f), 'utf8');
    const imp = text.match(/^import \(([\s\S]*?)^\)/m);
    for (const line of (imp?.[1] ?? '').split('\n')) {
      const m = line.trim().match(/^(?:(\w+)\s+)?"([^"]+)"$/);
      if (m) pkg.imports.set(m[1] ?? m[2].split('/').pop(), m[2]);
    }
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const head = lines[i].match(/^type (\w+) struct \{$/);
      if (head) {
        const fields = [];
        for (i++; i < lines.length && lines[i] !== '}'; i++) {
          const line = lines[i].replace(/\/\/.*$/, '');
          const tag = line.match(/`([^`]*)`/)?.[1] ?? '';
          const json = tag.match(/json:"([^"]*)"/)?.[1];
          const named = line.match(/^\t(\w+)\s+([^\s`]+)\s*`/);
          const embedded = line.match(/^\t(\*?[\w.]+)\s*`/);
          if (named) fields.push({ expr: named[2], json });
          else if (embedded) fields.push({ expr: embedded[1], json: json ?? ',inline' });
        }
        pkg.structs.set(head[1], fields);
        continue;
      }
      const alias = lines[i].match(/^type (\w+) (\S.*)$/);
      if (alias && !alias[2].startsWith('struct') && !alias[2].startsWith('interface')) pkg.named.set(alias[1], alias[2].trim());
    }
  }
  return pkg;
}

const apiDir = moduleDir('k8s.io/api');
const machineryDir = moduleDir('k8s.io/apimachinery');
const parsed = new Map(Object.keys(PACKAGES).map((p) => [p, parsePackage(p)]));
const idOf = Object.fromEntries(Object.entries(PACKAGES).map(([p, v]) => [p, v.id]));

/** A type expression as the table spells it: S<type> struct, M<elem> map, L<elem> slice, '' anything else. */
function ref(expr, importPath) {
  const pkg = parsed.get(importPath);
  let e = expr.replace(/^\*/, '');
  if (e === '[]byte') return '';
  if (e.startsWith('[]')) return `L${ref(e.slice(2), importPath)}`;
  if (e.startsWith('map[')) {
    let depth = 0;
    let i = 3;
    for (; i < e.length; i++) {
      if (e[i] === '[') depth++;
      else if (e[i] === ']' && --depth === 0) break;
    }
    return `M${ref(e.slice(i + 1), importPath)}`;
  }
  if (SCALARS.has(e)) return '';
  let target = importPath;
  const dot = e.indexOf('.');
  if (dot >= 0) {
    target = pkg.imports.get(e.slice(0, dot));
    e = e.slice(dot + 1);
    if (!target || !parsed.has(target)) return '';
  }
  const id = `${idOf[target]}.${e}`;
  if (OWN_JSON.has(id)) return '';
  const tp = parsed.get(target);
  if (tp.structs.has(e)) return `S${id}`;
  if (tp.named.has(e)) return ref(tp.named.get(e), target);
  return '';
}

/** The JSON fields of a struct (inline ones flattened): name → [ref, omitempty]. */
function fieldsOf(id) {
  if (KARMADA[id]) return KARMADA[id];
  const [pkgId, name] = [id.slice(0, id.lastIndexOf('.')), id.slice(id.lastIndexOf('.') + 1)];
  const importPath = Object.keys(idOf).find((p) => idOf[p] === pkgId);
  const out = {};
  for (const f of parsed.get(importPath).structs.get(name) ?? []) {
    const [jsonName, ...opts] = (f.json ?? '').split(',');
    if (jsonName === '-') continue;
    const r = ref(f.expr, importPath);
    if (jsonName === '' && opts.includes('inline')) {
      if (r.startsWith('S')) Object.assign(out, fieldsOf(r.slice(1)));
      continue;
    }
    if (r !== '') out[jsonName] = [r, opts.includes('omitempty') ? 1 : 0];
  }
  return out;
}

const table = {};
const queue = [...ROOTS];
while (queue.length > 0) {
  const id = queue.shift();
  if (id in table) continue;
  table[id] = fieldsOf(id);
  for (const [r] of Object.values(table[id])) {
    const s = r.replace(/^[LM]+/, '');
    if (s.startsWith('S')) queue.push(s.slice(1));
  }
}

const lines = Object.keys(table)
  .sort()
  .map((k) => `  ${JSON.stringify(k)}: ${JSON.stringify(table[k]).replace(/,"/g, ', "').replace(/":/g, '": ')},`);
writeFileSync(
  new URL('../src/interpreter/go-types.ts', import.meta.url),
  `// Generated by scripts/derive-go-types.mjs from k8s.io/api and k8s.io/apimachinery ${K8S_VERSION}; do not edit.
// Regenerate: node scripts/derive-go-types.mjs
/**
 * Go struct name → JSON field → [type, omitempty]: type 'S<struct>', 'M<elem>' (map), 'L<elem>' (slice);
 * scalar fields and types with their own JSON form are not listed.
 */
export const GO_TYPES: Record<string, Record<string, readonly [string, 0 | 1]>> = {
${lines.join('\n')}
};
`,
);
console.log(`${lines.length} types`);
