#!/usr/bin/env node
// Lints the deploy/ manifests offline, against a real kube-apiserver of the pinned version (scripts/k8s/):
//   1. kubeconform -strict, with JSON schemas made from that apiserver's /openapi/v2 (kubeconform's usual
//      schemas are downloaded from GitHub, which CI cannot reach);
//   2. a server-side dry run of every object with fieldValidation=Strict: the apiserver's own validation;
//   3. the restricted Pod Security Standard: every pod template is dry-run created as a Pod in a namespace
//      labelled pod-security.kubernetes.io/enforce=restricted, so the apiserver's PodSecurity admission
//      (the reference implementation of the standard) refuses anything less.
// Helm charts among them (deploy/chart, made by scripts/chart.mjs) get `helm lint --strict`, and their rendering
// goes through the same three checks. kubeconform and helm are built once from the Go module proxy into the
// same cache as the apiserver binaries.
//
//   node scripts/lint-manifests.mjs [files or folders...]     # default: deploy/; starts a private apiserver
//   node scripts/lint-manifests.mjs --kubeconfig admin.kubeconfig [...]   # against a running one instead
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KUBECONFORM_VERSION = 'v0.8.0';
let kubeconformBin;
const cache = process.env.KARMADA_LITE_CACHE ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'karmada-lite');
const HELM_VERSION = 'v3.22.0';

const log = (msg) => process.stderr.write(`[lint-manifests] ${msg}\n`);
/** Thrown, not exited: the finally in main() must still stop the apiservers. */
class LintError extends Error {}
const die = (msg) => {
  throw new LintError(msg);
};

// --- the manifests ------------------------------------------------------------------------------------------

/**
 * Values for the templates' ${VARS} (deploy/webhook/*.yaml are envsubst templates): a throwaway CA-less
 * self-signed certificate and key, so that the apiserver's checks of a TLS Secret see real PEM data.
 */
function placeholders(dir) {
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=karmada-lite-webhook.karmada-system.svc', '-keyout', path.join(dir, 'tls.key'), '-out', path.join(dir, 'tls.crt')], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.error || r.status !== 0) die(`openssl could not make the placeholder certificate: ${r.error?.message ?? r.stderr}`);
  const b64 = (f) => readFileSync(path.join(dir, f)).toString('base64');
  return { WEBHOOK_URL: 'https://karmada-lite-webhook.karmada-system.svc:443', CA_BUNDLE: b64('tls.crt'), TLS_CRT: b64('tls.crt'), TLS_KEY: b64('tls.key'), CA_CRT: b64('tls.crt') };
}

/** Helm charts (a folder with Chart.yaml) are linted rendered, not as files: their templates are not YAML yet. */
const isChart = (p) => statSync(p).isDirectory() && existsSync(path.join(p, 'Chart.yaml'));
const charts = (p) => (isChart(p) ? [p] : statSync(p).isDirectory() ? readdirSync(p).sort().flatMap((n) => charts(path.join(p, n))) : []);

function yamlFiles(p) {
  if (isChart(p)) return [];
  if (statSync(p).isDirectory()) return readdirSync(p).sort().flatMap((n) => yamlFiles(path.join(p, n)));
  return /\.ya?ml$/.test(p) ? [p] : [];
}

function loadManifests(paths, values) {
  const out = [];
  for (const file of paths.flatMap(yamlFiles)) {
    const text = readFileSync(file, 'utf8').replace(/\$\{(\w+)\}/g, (m, v) => {
      if (!(v in values)) die(`${path.relative(root, file)}: no placeholder value for ${m}; add one to placeholders() in scripts/lint-manifests.mjs`);
      return values[v];
    });
    parseAllDocuments(text).forEach((d, i) => {
      if (d.errors.length) die(`${path.relative(root, file)}[${i}]: ${d.errors[0].message}`);
      const obj = d.toJS();
      if (obj) out.push({ file: path.relative(root, file), index: i, text: d.toString(), obj });
    });
  }
  return out;
}

// --- kubeconform --------------------------------------------------------------------------------------------

/** Builds a Go command once from the Go module proxy into the cache; returns its path. */
function ensureGoTool(name, pkg, version) {
  const bin = path.join(cache, 'bin', `${name}-${version}`, name);
  if (existsSync(bin)) return bin;
  log(`building ${name} ${version} from the Go module proxy into ${path.dirname(bin)}`);
  mkdirSync(cache, { recursive: true });
  const tmpBin = mkdtempSync(path.join(cache, `${name}-build-`));
  const r = spawnSync('go', ['install', '-trimpath', '-ldflags', '-s -w', `${pkg}@${version}`], {
    stdio: 'inherit',
    env: { ...process.env, GOBIN: tmpBin, CGO_ENABLED: '0', GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? 'local', GOFLAGS: '-mod=mod' },
  });
  if (r.error || r.status !== 0) die(`go install ${name} failed (${r.error?.message ?? `exit ${r.status}`}); is go on PATH?`);
  mkdirSync(path.dirname(bin), { recursive: true });
  // Renamed into place, so that an interrupted build never leaves a half-written binary that looks cached.
  renameSync(path.join(tmpBin, name), bin);
  rmSync(tmpBin, { recursive: true, force: true });
  return bin;
}

/**
 * The Helm chart (generated from the same manifests by scripts/chart.mjs): `helm lint --strict`, then its
 * rendering, CRDs included, goes through the same checks as the plain manifests.
 */
function renderedChart(chartDir, work) {
  const helm = ensureGoTool('helm', 'helm.sh/helm/v3/cmd/helm', HELM_VERSION);
  const env = { ...process.env, HELM_CACHE_HOME: path.join(work, 'helm-cache'), HELM_CONFIG_HOME: path.join(work, 'helm-config'), HELM_DATA_HOME: path.join(work, 'helm-data') };
  const lint = spawnSync(helm, ['lint', '--strict', chartDir], { encoding: 'utf8', env });
  process.stderr.write(lint.stdout.split('\n').filter((l) => l && !l.includes('icon is recommended')).map((l) => `[helm lint] ${l}\n`).join(''));
  if (lint.status !== 0) die(`helm lint --strict ${path.relative(root, chartDir)} failed:\n${lint.stderr}`);
  const r = spawnSync(helm, ['template', 'karmada-lite', chartDir, '--include-crds'], { encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) die(`helm template ${path.relative(root, chartDir)} failed:\n${r.stderr}`);
  const file = path.join(work, 'chart-rendered.yaml');
  writeFileSync(file, r.stdout);
  return file;
}

/** kubeconform's file name for a kind: `deployment-apps-v1`, `namespace-v1`, `clusterrole-rbac-v1`. */
function schemaName(apiVersion, kind) {
  const [groupOrVersion, version] = apiVersion.split('/');
  return `${kind.toLowerCase()}-${groupOrVersion.split('.')[0].toLowerCase()}${version ? `-${version.toLowerCase()}` : ''}`;
}

/**
 * A standalone JSON schema per kind from the OpenAPI v2 document, as kubeconform's own schemas are made
 * (openapi2jsonschema --strict): references kept within the file, int-or-string and quantities accept
 * both JSON types, and objects with declared properties accept no others.
 */
function writeSchemas(openapi, kinds, dir) {
  const defs = openapi.definitions;
  const byGvk = new Map();
  for (const [name, def] of Object.entries(defs)) {
    for (const gvk of def['x-kubernetes-group-version-kind'] ?? []) byGvk.set(`${gvk.group ? `${gvk.group}/` : ''}${gvk.version}|${gvk.kind}`, name);
  }
  const fix = (node) => {
    if (Array.isArray(node)) return node.map(fix);
    if (!node || typeof node !== 'object') return node;
    const out = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' ? v : fix(v);
    if (out.format === 'int-or-string') return { oneOf: [{ type: 'string' }, { type: 'integer' }], ...(out.description ? { description: out.description } : {}) };
    if (out.type === 'object' && out.properties && out.additionalProperties === undefined && !out['x-kubernetes-preserve-unknown-fields']) out.additionalProperties = false;
    return out;
  };
  const special = {
    'io.k8s.apimachinery.pkg.api.resource.Quantity': { oneOf: [{ type: 'string' }, { type: 'number' }] },
    'io.k8s.apimachinery.pkg.util.intstr.IntOrString': { oneOf: [{ type: 'string' }, { type: 'integer' }] },
  };
  for (const key of kinds) {
    const name = byGvk.get(key);
    if (!name) die(`the apiserver's OpenAPI has no schema for ${key.replace('|', ' ')}`);
    // Only the definitions this kind reaches: a copy of all of them per kind would be megabytes each.
    const reached = new Set();
    const visit = (n) => {
      if (reached.has(n)) return;
      reached.add(n);
      JSON.stringify(defs[n], (k, v) => {
        if (k === '$ref' && typeof v === 'string') visit(v.replace('#/definitions/', ''));
        return v;
      });
    };
    visit(name);
    const definitions = Object.fromEntries([...reached].map((n) => [n, special[n] ?? fix(defs[n])]));
    const [apiVersion, kind] = key.split('|');
    writeFileSync(path.join(dir, `${schemaName(apiVersion, kind)}.json`), JSON.stringify({ $schema: 'http://json-schema.org/draft-04/schema#', ...definitions[name], definitions }));
  }
}

// --- the apiserver ------------------------------------------------------------------------------------------

function kubeconfigOf(file) {
  const kc = parseAllDocuments(readFileSync(file, 'utf8'))[0].toJS();
  const cluster = kc.clusters[0].cluster;
  const user = kc.users[0].user;
  const url = new URL(cluster.server);
  const b64 = (s) => Buffer.from(s, 'base64');
  return { host: url.hostname, port: Number(url.port), ca: b64(cluster['certificate-authority-data']), cert: b64(user['client-certificate-data']), key: b64(user['client-key-data']) };
}

function api(kc, method, p, body, contentType = 'application/json') {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request({ ...kc, method, path: p, headers: { accept: 'application/json', ...(payload ? { 'content-type': contentType } : {}) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ code: res.statusCode, json, text, warnings: [res.headers.warning ?? []].flat() });
      });
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${p} timed out`)));
    req.end(payload);
  });
}

/** `/apis/apps/v1/namespaces/x/deployments` for an object, from the server's discovery. */
async function collectionPath(kc, obj, namespace) {
  const [g, v] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : [undefined, obj.apiVersion];
  const base = g ? `/apis/${g}/${v}` : `/api/${v}`;
  const res = await api(kc, 'GET', base);
  const r = res.json?.resources?.find((x) => x.kind === obj.kind && !x.name.includes('/'));
  if (!r) throw new Error(`the apiserver does not serve ${obj.kind} in ${obj.apiVersion}`);
  return r.namespaced ? `${base}/namespaces/${namespace ?? obj.metadata?.namespace ?? 'default'}/${r.name}` : `${base}/${r.name}`;
}

const POD_TEMPLATE_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'ReplicationController']);

function parseArgs(argv) {
  const out = { kubeconfig: undefined, targets: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--kubeconfig') out.kubeconfig = argv[++i];
    else if (argv[i].startsWith('-')) die(`unknown flag ${argv[i]}; usage: node scripts/lint-manifests.mjs [--kubeconfig admin.kubeconfig] [files or folders...]`);
    else out.targets.push(path.resolve(argv[i]));
  }
  if (out.targets.length === 0) out.targets.push(path.join(root, 'deploy'));
  return out;
}

/** The three checks against one apiserver; returns the number of problems found. */
async function lint(kc, manifests, work) {
  let problems = 0;
  const fail = (msg) => {
    problems++;
    log(msg);
  };

  // 1. kubeconform, with the apiserver's schemas.
  const openapi = await api(kc, 'GET', '/openapi/v2');
  if (openapi.code !== 200) die(`GET /openapi/v2: ${openapi.code}`);
  const schemaDir = path.join(work, 'schemas');
  mkdirSync(schemaDir);
  writeSchemas(openapi.json, new Set(manifests.map((m) => `${m.obj.apiVersion}|${m.obj.kind}`)), schemaDir);
  const files = [...new Set(manifests.map((m) => m.file))];
  const substituted = files.map((f, i) => {
    const out = path.join(work, `manifest-${i}-${path.basename(f)}`);
    writeFileSync(out, manifests.filter((m) => m.file === f).map((m) => m.text).join('---\n'));
    return out;
  });
  const kcRun = spawnSync(kubeconformBin, ['-strict', '-summary', '-output', 'text', '-schema-location', `${schemaDir}/{{ .ResourceKind }}{{ .KindSuffix }}.json`, ...substituted], { encoding: 'utf8' });
  if (kcRun.error) die(`cannot run ${kubeconformBin}: ${kcRun.error.message}`);
  process.stderr.write(kcRun.stdout.replaceAll(work + '/', '').replace(/manifest-\d+-/g, ''));
  process.stderr.write(kcRun.stderr);
  if (kcRun.status !== 0) fail('kubeconform: FAILED');
  else log('kubeconform -strict: ok');

  // 2. A server-side apply of every object as a dry run, strict about unknown fields: what `kubectl apply
  //    --server-side --dry-run=server` checks, whether the object exists already or not. Namespaces are
  //    created for real (an existing one is fine) so that the namespaced objects have somewhere to go.
  const before = problems;
  for (const m of manifests.filter((x) => x.obj.kind === 'Namespace')) await api(kc, 'POST', '/api/v1/namespaces', m.obj);
  for (const m of manifests) {
    if (m.obj.kind === 'Namespace') continue;
    const p = await collectionPath(kc, m.obj);
    const r = await api(kc, 'PATCH', `${p}/${encodeURIComponent(m.obj.metadata?.name ?? '')}?dryRun=All&fieldValidation=Strict&fieldManager=karmada-lite-lint&force=true`, m.obj, 'application/apply-patch+yaml');
    const where = `${m.file}[${m.index}] ${m.obj.kind} ${m.obj.metadata?.name}`;
    if (r.code >= 300) fail(`dry run: ${where}: ${r.code} ${r.json?.message ?? r.text}`);
    else if (r.warnings.length) fail(`dry run: ${where}: warnings: ${r.warnings.join('; ')}`);
  }
  log(`server-side apply dry run (fieldValidation=Strict): ${problems > before ? 'FAILED' : 'ok'}`);

  // 3. The restricted Pod Security Standard, enforced by the apiserver's PodSecurity admission.
  const pssNs = 'lint-pod-security-restricted';
  const nsRes = await api(kc, 'POST', '/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: pssNs, labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'latest' } },
  });
  if (nsRes.code >= 300 && nsRes.code !== 409) die(`cannot create the restricted namespace: ${nsRes.code} ${nsRes.text}`);
  const ns = await api(kc, 'GET', `/api/v1/namespaces/${pssNs}`);
  if (ns.json?.metadata?.labels?.['pod-security.kubernetes.io/enforce'] !== 'restricted') die(`namespace ${pssNs} exists without the label pod-security.kubernetes.io/enforce=restricted`);
  const pssBefore = problems;
  let pods = 0;
  for (const m of manifests) {
    const tpl = m.obj.kind === 'CronJob' ? m.obj.spec?.jobTemplate?.spec?.template : m.obj.kind === 'Pod' ? m.obj : POD_TEMPLATE_KINDS.has(m.obj.kind) ? m.obj.spec?.template : undefined;
    if (!tpl) continue;
    pods++;
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `${m.obj.metadata.name}-lint`, labels: tpl.metadata?.labels }, spec: tpl.spec };
    const r = await api(kc, 'POST', `/api/v1/namespaces/${pssNs}/pods?dryRun=All`, pod);
    if (r.code >= 300) fail(`pod security (restricted): ${m.file}[${m.index}] ${m.obj.kind} ${m.obj.metadata.name}: ${r.json?.message ?? r.text}`);
  }
  if (pods === 0) die('no pod templates found: nothing was checked against the restricted Pod Security Standard');
  log(`pod security (restricted, ${pods} pod template(s)): ${problems > pssBefore ? 'FAILED' : 'ok'}`);
  return problems;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const work = mkdtempSync(path.join(tmpdir(), 'karmada-lite-lint-'));
  let startedEnv;
  try {
    // A rendered chart is reported as <chart>/helm-template.yaml (kubeconform reads only *.yaml names).
    const rendered = args.targets.flatMap(charts).flatMap((c) => loadManifests([renderedChart(c, work)], {}).map((m) => ({ ...m, file: `${path.relative(root, c)}/helm-template.yaml` })));
    const manifests = [...loadManifests(args.targets, placeholders(work)), ...rendered];
    if (manifests.length === 0) die(`no manifests under ${args.targets.join(', ')}`);
    log(`${manifests.length} objects in ${new Set(manifests.map((m) => m.file)).size} files`);
    kubeconformBin = ensureGoTool('kubeconform', 'github.com/yannh/kubeconform/cmd/kubeconform', KUBECONFORM_VERSION);
    let kubeconfig = args.kubeconfig;
    if (!kubeconfig) {
      // A private apiserver, started and stopped here: nothing else running on the machine is touched.
      if (spawnSync('bash', [path.join(root, 'scripts/k8s/build.sh')], { stdio: ['ignore', 'ignore', 'inherit'] }).status !== 0) die('scripts/k8s/build.sh failed: no kube-apiserver to lint against');
      startedEnv = path.join(work, 'env');
      if (envSh(startedEnv, 'start').status !== 0) die(`scripts/k8s/env.sh start failed; logs in ${startedEnv}`);
      kubeconfig = path.join(startedEnv, 'host', 'kubeconfig');
    }
    const problems = await lint(kubeconfigOf(kubeconfig), manifests, work);
    if (problems) die(`${problems} problem(s) in the manifests`);
    log(`${manifests.length} objects: schemas (kubeconform and the apiserver) and the restricted Pod Security Standard ok`);
  } finally {
    if (startedEnv) envSh(startedEnv, 'stop');
    rmSync(work, { recursive: true, force: true });
  }
}

function envSh(dir, cmd) {
  return spawnSync('bash', [path.join(root, 'scripts/k8s/env.sh'), cmd], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, KARMADA_LITE_ENV_DIR: dir } });
}

main().catch((e) => {
  log(`ERROR: ${e instanceof LintError ? e.message : (e.stack ?? String(e))}`);
  process.exit(1);
});
