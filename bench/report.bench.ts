/**
 * The fleet report at scale: `npx tsx bench/report.bench.ts [--templates 1000] [--clusters 20] [--runs 5]`
 * (plain script; figures in bench/README.md, section "Fleet report").
 *
 * Plans N Deployments over M clusters (one PropagationPolicy per 50 templates, Duplicated to every cluster,
 * every other policy suspending dispatch on half of the clusters), writes `plan -o html` of it and opens it
 * in headless Chromium (test/browser/chromium.ts): time to open (navigation start to the matrix painted,
 * the page's own performance clock), to filter (state, namespace, policy, cluster: change event to the next
 * frame painted) and to click into a template (a cell to its manifest painted). Median and max of --runs.
 * Target: each under 1 s at 1,000 x 20.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseDocuments } from '../src/io/documents.js';
import { CLUSTER, is } from '../src/core/kinds.js';
import type { KObject } from '../src/core/object.js';
import { plan } from '../src/store/plan.js';
import { fleetInputOfPlan, fleetReport } from '../src/report/model.js';
import { reportHtml } from '../src/report/html.js';
import { launchChromium } from '../test/browser/chromium.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('templates', 1000);
const M = arg('clusters', 20);
const RUNS = arg('runs', 5);

function input(): string {
  const docs: string[] = [];
  for (let c = 0; c < M; c++) docs.push(`apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member${c + 1}}\nspec: {syncMode: Push}\n`);
  const half = Array.from({ length: Math.floor(M / 2) }, (_, c) => `member${c + 1}`).join(', ');
  for (let p = 0; p < Math.ceil(N / 50); p++) {
    const ns = `team-${p % 5}`;
    docs.push(`apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: pol-${p}, namespace: ${ns}}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {group: g${p}}}}]
  placement: {replicaScheduling: {replicaSchedulingType: Duplicated}}
${p % 2 ? `  suspension: {dispatchingOnClusters: {clusterNames: [${half}]}}\n` : ''}`);
    for (let i = p * 50; i < Math.min(N, (p + 1) * 50); i++) {
      docs.push(`apiVersion: apps/v1
kind: Deployment
metadata: {name: app-${i}, namespace: ${ns}, labels: {group: g${p}}}
spec:
  replicas: 2
  selector: {matchLabels: {app: app-${i}}}
  template: {metadata: {labels: {app: app-${i}}}, spec: {containers: [{name: main, image: "registry.example/app-${i}:1"}]}}
`);
    }
  }
  return docs.join('---\n');
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const t0 = performance.now();
const docs = parseDocuments(input(), 'bench.yaml');
const out = plan(docs, { at: new Date('2024-01-01T00:00:00Z') });
if (!out.ok) throw new Error(out.problems.join('\n'));
const clusters = docs.map((d) => d.object as unknown as KObject).filter((o) => is(o, CLUSTER));
const html = reportHtml(fleetReport(fleetInputOfPlan(out.result, clusters)));
const dir = mkdtempSync(join(tmpdir(), 'report-bench-'));
const file = join(dir, 'report.html');
writeFileSync(file, html);
console.error(`planned ${out.result.bindings.length} bindings, ${out.result.works.length} Works in ${((performance.now() - t0) / 1000).toFixed(1)} s; page ${(html.length / 1e6).toFixed(1)} MB`);

const browser = await launchChromium();
const runs: Record<string, number[]> = {};
const record = (what: string, ms: number) => (runs[what] ??= []).push(ms);
try {
  for (let run = 0; run < RUNS; run++) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(pathToFileURL(file).href);
    await page.locator('body[data-ready="true"]').waitFor();
    // navigation start to the first render painted, on the page's clock (the bundle sets data-ready after it)
    record('open (navigation to matrix drawn)', await page.evaluate(() => performance.getEntriesByName('fleet-ready')[0]!.startTime));
    await page.waitForFunction(() => performance.getEntriesByName('fleet-painted').length > 0);
    record('open (navigation to matrix painted)', await page.evaluate(() => performance.getEntriesByName('fleet-painted')[0]!.startTime));
    /** A filter's change event to the next frame painted; then back to all (not timed). */
    const filter = async (id: string, value: string) => {
      const set = (v: string) =>
        page.evaluate(
          ([id, v]) =>
            new Promise<number>((res) => {
              const el = document.getElementById(id!) as HTMLSelectElement;
              const start = performance.now();
              el.value = v!;
              el.dispatchEvent(new Event('change'));
              requestAnimationFrame(() => setTimeout(() => res(performance.now() - start), 0));
            }),
          [id, v],
        );
      record(`filter ${id.slice(2)}=${value}`, await set(value));
      const shown = await page.locator('#count').innerText();
      await set('');
      return shown;
    };
    const shown = [await filter('f-state', 'suspended'), await filter('f-namespace', 'team-1'), await filter('f-policy', 'team-3/pol-13'), await filter('f-cluster', 'member7')];
    if (run === 0) console.error(`filters show: ${shown.join(' | ')}`);
    // scrolled to the middle: the rows drawn there are the rows in view
    await page.evaluate(() => {
      const w = document.getElementById('matrix-wrap')!;
      w.scrollTop = w.scrollHeight / 2;
    });
    // the scroll's frame drew the rows now in view
    // (no named functions inside page code: tsx's transform would wrap them in a helper the page lacks)
    await page.waitForFunction(() => {
      const wrap = document.getElementById('matrix-wrap')!.getBoundingClientRect();
      return [...document.querySelectorAll('#matrix-body td[data-cluster]')].some((td) => td.getBoundingClientRect().top > wrap.top + 40 && td.getBoundingClientRect().bottom < wrap.bottom);
    });
    /** A click on a cell to its Work's manifest painted in the panel (the detail inflated on the way). */
    record(
      'click into a template (cell to manifest painted)',
      await page.evaluate(
        () =>
          new Promise<number>((res) => {
            const wrap = document.getElementById('matrix-wrap')!.getBoundingClientRect();
            const cells = [...document.querySelectorAll<HTMLElement>('#matrix-body td[data-cluster]')].filter((td) => td.getBoundingClientRect().top > wrap.top + 40);
            const td = cells[Math.floor(cells.length / 2)]!;
            const panel = document.getElementById('panel')!;
            const start = performance.now();
            new MutationObserver((_, obs) => {
              if (panel.dataset.row !== td.dataset.row || !panel.querySelector('pre.manifest')) return;
              obs.disconnect();
              requestAnimationFrame(() => setTimeout(() => res(performance.now() - start), 0));
            }).observe(panel, { childList: true, attributes: true, subtree: true });
            td.click();
          }),
      ),
    );
    if (run === 0) console.error(`rows in the DOM at the middle: ${await page.locator('#matrix-body tr[data-row]').count()} of ${N}`);
    await page.close();
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
const fmt = (xs: number[]) => `median ${median(xs).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms (${xs.map((x) => x.toFixed(0)).join(', ')})`;
console.log(`fleet report ${N} templates x ${M} clusters, page ${(html.length / 1e6).toFixed(1)} MB, ${RUNS} runs in headless Chromium, load ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}`);
for (const [what, xs] of Object.entries(runs)) console.log(`  ${what.padEnd(50)} ${fmt(xs)}`);
