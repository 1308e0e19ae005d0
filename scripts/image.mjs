#!/usr/bin/env node
// The container image: one name and tag, from package.json's version, used by the Dockerfile's build, by
// deploy/controller/controller.yaml and by the Helm chart (deploy/chart).
//
//   node scripts/image.mjs ref            # prints karmada-lite:<version> (IMAGE=registry/name overrides the name)
//   node scripts/image.mjs build          # docker build -t <ref> . (needs a running Docker daemon)
//   node scripts/image.mjs check          # CI: lints the Dockerfile and checks that deploy/ and the chart run <ref>;
//                                         # with a reachable Docker daemon it also builds the image and runs it
//
// Exit status: 0 ok, 1 a check failed, 2 usage.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DockerfileParser } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { parseAllDocuments } from 'yaml';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const version = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;
export const imageName = process.env.IMAGE ?? 'karmada-lite';
export const imageRef = `${imageName}:${version}`;

const log = (msg) => process.stderr.write(`[image] ${msg}\n`);

/**
 * The Dockerfile's problems: dockerfile-utils' lint (the rules of the Docker language server), and the
 * image's own rules: a distroless final stage that runs the standalone binary as a numeric non-root user.
 */
export function dockerfileProblems(text) {
  const problems = validate(text).map((d) => `Dockerfile:${d.range.start.line + 1}: ${d.message}`);
  const doc = DockerfileParser.parse(text);
  const froms = doc.getFROMs();
  if (froms.length === 0) return [...problems, 'Dockerfile: no FROM'];
  const final = froms[froms.length - 1];
  const finalLine = final.getRange().start.line;
  const after = doc.getInstructions().filter((i) => i.getRange().start.line > finalLine);
  const image = final.getImage() ?? '';
  if (!/^gcr\.io\/distroless\/[a-z0-9-]+:nonroot$/.test(image)) problems.push(`Dockerfile:${finalLine + 1}: the final stage must be a distroless :nonroot base, got ${image}`);
  const users = after.filter((i) => i.getKeyword() === 'USER');
  const user = users.at(-1)?.getArgumentsContent() ?? '';
  const uid = /^(\d+)(:\d+)?$/.exec(user)?.[1];
  if (uid === undefined || Number(uid) === 0) problems.push(`Dockerfile: the final stage must set USER to a numeric non-root uid (runAsNonRoot checks it), got ${user || 'none'}`);
  const entry = after.filter((i) => i.getKeyword() === 'ENTRYPOINT').at(-1)?.getArgumentsContent();
  if (entry !== '["/karmada-lite"]') problems.push(`Dockerfile: ENTRYPOINT must be ["/karmada-lite"] (what deploy/ runs as its command), got ${entry ?? 'none'}`);
  const versionArg = after.find((i) => i.getKeyword() === 'ARG' && /^VERSION=/.test(i.getArgumentsContent() ?? ''));
  const argDefault = versionArg?.getArgumentsContent()?.split('=')[1];
  if (argDefault !== version) problems.push(`Dockerfile: ARG VERSION defaults to ${argDefault ?? 'nothing'}, package.json says ${version}`);
  return problems;
}

/** The images the deploy manifests and the chart run. */
function deployedImages() {
  const out = [];
  const manifest = path.join(root, 'deploy/controller/controller.yaml');
  for (const d of parseAllDocuments(readFileSync(manifest, 'utf8'))) {
    const o = d.toJS();
    for (const c of o?.spec?.template?.spec?.containers ?? []) out.push({ where: `deploy/controller/controller.yaml ${o.kind} ${o.metadata?.name}`, image: c.image });
  }
  const values = parseAllDocuments(readFileSync(path.join(root, 'deploy/chart/karmada-lite/values.yaml'), 'utf8'))[0].toJS();
  const chart = parseAllDocuments(readFileSync(path.join(root, 'deploy/chart/karmada-lite/Chart.yaml'), 'utf8'))[0].toJS();
  out.push({ where: 'deploy/chart/karmada-lite (values.yaml image.repository, Chart.yaml appVersion)', image: `${values.image.repository}:${values.image.tag || chart.appVersion}` });
  return out;
}

function dockerAvailable() {
  const r = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8' });
  return !r.error && r.status === 0 && r.stdout.trim() !== '';
}

function build() {
  log(`docker build -t ${imageRef} ${root}`);
  const r = spawnSync('docker', ['build', '--build-arg', `VERSION=${version}`, '-t', imageRef, root], { stdio: 'inherit' });
  if (r.error) throw new Error(`docker: ${r.error.message}; install Docker, or build dist/karmada-lite with npm run build`);
  return r.status ?? 1;
}

function check() {
  const problems = dockerfileProblems(readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
  for (const { where, image } of deployedImages()) {
    if (image !== `karmada-lite:${version}`) problems.push(`${where}: runs ${image}, but the build produces karmada-lite:${version}; set it to that tag`);
  }
  for (const p of problems) log(p);
  if (problems.length) return 1;
  log(`Dockerfile lint ok; deploy/ and the chart run karmada-lite:${version}`);
  if (!dockerAvailable()) {
    log('no Docker daemon here: the image was linted, not built (with one, this also builds it and runs --version)');
    return 0;
  }
  if (build() !== 0) return 1;
  const r = spawnSync('docker', ['run', '--rm', imageRef, '--version'], { encoding: 'utf8' });
  if (r.status !== 0 || !r.stdout.includes(version)) {
    log(`docker run ${imageRef} --version: exit ${r.status}, printed ${r.stdout}${r.stderr}`);
    return 1;
  }
  log(`built ${imageRef}; it runs and says ${r.stdout.trim()}`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const cmd = process.argv[2];
  try {
    if (cmd === 'ref') process.stdout.write(`${imageRef}\n`);
    else if (cmd === 'build') process.exitCode = dockerAvailable() ? build() : (log('no Docker daemon reachable (docker info failed); start one, or set DOCKER_HOST'), 1);
    else if (cmd === 'check') process.exitCode = check();
    else {
      process.stderr.write('usage: node scripts/image.mjs ref|build|check\n');
      process.exitCode = 2;
    }
  } catch (e) {
    log(e.message);
    process.exitCode = 1;
  }
}
