#!/usr/bin/env node
// Captures the API schemas of the pinned kube-apiserver (versions.sh) into scripts/k8s/openapi/<version>.json,
// the input `npm run generate` compiles into the offline schema check of built-in kinds (validate, plan).
// Only the definitions are kept, without descriptions or patch/list hints: what a schema check reads.
// Run it when the pin moves, and commit the file; nothing at build or run time reaches a server.
//
//   node scripts/k8s/capture-openapi.mjs                         # starts a private apiserver (env.sh), stops it
//   node scripts/k8s/capture-openapi.mjs --kubeconfig admin.kubeconfig   # or asks a running one
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Keywords a validator reads; everything else (descriptions, merge hints) only grows the file. */
const KEEP = new Set(['type', 'format', 'properties', 'items', 'additionalProperties', 'required', '$ref', 'enum', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-group-version-kind']);

function trim(node) {
  if (Array.isArray(node)) return node.map(trim);
  if (!node || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (!KEEP.has(k)) continue;
    if (k === 'properties') out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, trim(s)]));
    else out[k] = k === 'x-kubernetes-group-version-kind' || k === 'enum' || k === 'required' ? v : trim(v);
  }
  return out;
}

function get(kubeconfig, urlPath) {
  const kc = parse(readFileSync(kubeconfig, 'utf8'));
  const server = new URL(kc.clusters[0].cluster.server);
  const b64 = (s) => Buffer.from(s, 'base64');
  const user = kc.users[0].user;
  return new Promise((resolve, reject) => {
    const req = request(
      { host: server.hostname, port: server.port, path: urlPath, ca: b64(kc.clusters[0].cluster['certificate-authority-data']), cert: b64(user['client-certificate-data']), key: b64(user['client-key-data']), headers: { accept: 'application/json' } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`GET ${urlPath}: HTTP ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function main() {
  const args = process.argv.slice(2);
  let kubeconfig = args[0] === '--kubeconfig' ? args[1] : undefined;
  let envDir;
  if (!kubeconfig) {
    envDir = mkdtempSync(path.join(tmpdir(), 'karmada-lite-openapi-'));
    const env = { ...process.env, KARMADA_LITE_ENV_DIR: envDir };
    const r = spawnSync('bash', [path.join(here, 'env.sh'), 'start'], { stdio: 'inherit', env });
    if (r.status !== 0) throw new Error('env.sh start failed (is the apiserver built? bash scripts/k8s/build.sh)');
    kubeconfig = path.join(envDir, 'host', 'kubeconfig');
  }
  try {
    const version = JSON.parse(await get(kubeconfig, '/version')).gitVersion;
    const openapi = JSON.parse(await get(kubeconfig, '/openapi/v2'));
    const definitions = Object.fromEntries(Object.keys(openapi.definitions).sort().map((n) => [n, trim(openapi.definitions[n])]));
    const out = path.join(here, 'openapi', `${version}.json`);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify({ kubernetesVersion: version, source: 'kube-apiserver /openapi/v2, definitions only (scripts/k8s/capture-openapi.mjs)', definitions }, null, 1) + '\n');
    process.stderr.write(`wrote ${path.relative(process.cwd(), out)} (${Object.keys(definitions).length} definitions); now run npm run generate\n`);
  } finally {
    if (envDir) {
      spawnSync('bash', [path.join(here, 'env.sh'), 'stop'], { stdio: 'inherit', env: { ...process.env, KARMADA_LITE_ENV_DIR: envDir } });
      rmSync(envDir, { recursive: true, force: true });
    }
  }
}

main().catch((e) => {
  process.stderr.write(`capture-openapi: ${e.message}\n`);
  process.exit(1);
});
