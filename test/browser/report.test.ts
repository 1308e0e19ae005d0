// `plan -o html` in a real browser (headless Chromium through Playwright): the matrix of examples/, the
// state filter, a manifest with the fields overrides changed, and the diff view of an edited copy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { runCli } from '../cli/run-cli.js';
import { ARTIFACTS_DIR, chromiumMissing, launchChromium } from './chromium.js';

const repo = path.join(import.meta.dirname, '../..');
const examples = path.join(repo, 'examples');
const missing = chromiumMissing();
if (missing) console.warn(`skipped: the report's browser tests: ${missing}`);

const cell = (row: string, cluster: string) => `td[data-row="${row}"][data-cluster="${cluster}"]`;

describe.skipIf(missing !== undefined)('plan -o html in Chromium', () => {
  let browser: Browser;
  let dir: string;

  async function open(args: string[], name: string): Promise<Page> {
    const r = await runCli(['plan', ...args, '--at', '2024-01-01T00:00:00Z', '-o', 'html']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const file = path.join(dir, `${name}.html`);
    writeFileSync(file, r.stdout);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const requests: string[] = [];
    page.on('request', (q) => {
      if (!q.url().startsWith('file:')) requests.push(q.url());
    });
    page.on('pageerror', (e) => {
      throw e;
    });
    await page.goto(pathToFileURL(file).href);
    await page.locator('body[data-ready="true"]').waitFor();
    // self-contained: nothing but the file itself is fetched
    expect(requests).toEqual([]);
    return page;
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'report-browser-'));
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the matrix of examples/, filters to suspended Works and opens a manifest with the override highlighted', async () => {
    const page = await open(['-f', examples], 'examples');
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'report-examples.png'), fullPage: true });
    const states = async (row: string) => Promise.all(['member1', 'member2', 'member3'].map(async (c) => (await page.locator(cell(row, c)).count()) ? page.locator(cell(row, c)).getAttribute('data-state') : 'none'));
    expect(await states('Deployment/default/frontend')).toEqual(['dispatched', 'suspended', 'suspended']);
    expect(await states('Deployment/default/batch-worker')).toEqual(['suspended', 'suspended', 'suspended']);
    expect(await states('Deployment/default/legacy-api')).toEqual(['dispatched', 'dispatched', 'absent']);
    // the scheduler's reason, as `plan -o table` gives it
    const absent = page.locator(cell('Deployment/default/legacy-api', 'member3'));
    expect(await absent.innerText()).toBe('filtered out');
    expect(await absent.getAttribute('title')).toBe('filtered out: ClusterAffinity: cluster(s) did not match the placement cluster affinity constraint');
    // health as a mark of its own shape (never colour alone), the legend saying what each mark means
    const frontend = page.locator(cell('Deployment/default/frontend', 'member1'));
    expect(await frontend.innerText()).toMatch(/3\s+dispatched\s+✓\s+●/);
    expect(await frontend.getAttribute('data-health')).toBe('Healthy');
    expect(await page.locator('#legend-list li[data-legend="Healthy"]').innerText()).toBe('● Healthy, as the member reports it');
    expect(await page.locator('#legend-list li[data-legend="Unhealthy"]').innerText()).toBe('▲ Unhealthy, as the member reports it');
    expect(await page.locator(cell('Deployment/default/legacy-api', 'member2')).innerText()).toMatch(/2\s+dispatched/);

    await page.selectOption('#f-state', 'suspended');
    const rows = await page.locator('#matrix-body tr[data-row]').evaluateAll((trs) => trs.map((t) => (t as HTMLElement).dataset.row));
    expect(rows).toEqual(['Deployment/default/batch-worker', 'Deployment/default/frontend']);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'report-suspended.png'), fullPage: true });

    await page.locator(cell('Deployment/default/frontend', 'member1')).click();
    const manifest = page.locator('#panel pre.manifest');
    await manifest.waitFor();
    const highlighted = await manifest.locator('.ov').allInnerTexts();
    expect(highlighted).toEqual(['            "image": "mirror.eu-west.example.com/example/frontend:1.8.0"']);
    expect(await page.locator('#panel').innerText()).toContain('overrides: eu-registry-mirror');
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'report-manifest.png'), fullPage: true });

    await page.selectOption('#f-state', 'absent');
    // the templates `plan -o table` has a filtered out / not selected row for
    const notPlaced = await page.locator('#matrix-body tr[data-row]').evaluateAll((trs) => trs.map((t) => (t as HTMLElement).dataset.row));
    expect(notPlaced.sort()).toEqual(['Deployment/default/legacy-api', 'Deployment/default/nginx', 'Deployment/default/web', 'StatefulSet/default/mysql']);
    await absent.click();
    await page.locator('#panel[data-row="Deployment/default/legacy-api"] ul.absent').waitFor();
    expect(await page.locator('#panel ul.absent').innerText()).toBe('member3: filtered out: ClusterAffinity: cluster(s) did not match the placement cluster affinity constraint');
    expect(await page.locator('#panel pre.manifest').count()).toBe(0);
    await page.close();
  });

  it('tells health apart by colour and mark, filters by it, heads each column with sync mode and readiness, and shows a rollout in the panel', async () => {
    const fleet = path.join(dir, 'health');
    mkdirSync(fleet, { recursive: true });
    writeFileSync(
      path.join(fleet, 'clusters.yaml'),
      [
        'apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member1}\nspec: {syncMode: Push}\n',
        'apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member2}\nspec: {syncMode: Pull}\n',
        'apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: member3}\nspec: {syncMode: Push}\nstatus: {conditions: [{type: Ready, status: "False", reason: ClusterNotReachable, message: down, lastTransitionTime: "2024-01-01T00:00:00Z"}]}\n',
      ].join('---\n'),
    );
    const workload = (name: string) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}, namespace: default}\nspec: {replicas: 2, selector: {matchLabels: {app: ${name}}}, template: {metadata: {labels: {app: ${name}}}, spec: {containers: [{name: c, image: nginx:1.25}]}}}\n`;
    writeFileSync(
      path.join(fleet, 'apps.yaml'),
      [
        workload('sick'),
        workload('fine'),
        'apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: sick, namespace: default}\nspec: {resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: sick}], placement: {clusterAffinity: {clusterNames: [member1, member2]}}, rolloutStrategy: {type: Staged, staged: {stages: [{name: canary, clusterNames: [member1]}, {name: rest, clusterNames: [member2]}]}}}\n',
        'apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: fine, namespace: default}\nspec: {resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: fine}], placement: {clusterAffinity: {clusterNames: [member1, member2]}}}\n',
      ].join('---\n'),
    );
    writeFileSync(path.join(fleet, 'status.yaml'), '{cluster: member1, apiVersion: apps/v1, kind: Deployment, namespace: default, name: sick, health: Unhealthy}\n');
    const page = await open(['-f', path.join(fleet, 'apps.yaml'), '--clusters', path.join(fleet, 'clusters.yaml'), '--status', path.join(fleet, 'status.yaml')], 'health');
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'report-health.png'), fullPage: true });
    const sick = page.locator(cell('Deployment/default/sick', 'member1'));
    const fine = page.locator(cell('Deployment/default/fine', 'member1'));
    expect(await sick.getAttribute('data-health')).toBe('Unhealthy');
    expect(await fine.getAttribute('data-health')).toBe('Healthy');
    // its own colour (red), never the Healthy green, and its own mark
    const background = (l: typeof sick) => l.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(await background(sick)).toBe('rgb(255, 206, 203)');
    expect(await background(fine)).toBe('rgb(218, 251, 225)');
    expect(await sick.innerText()).toContain('▲');
    // nothing cut off: the cell shows all it holds
    expect(await sick.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    // the column heads: how each cluster is reached, and whether it is Ready
    const head = (c: string) => page.locator(`#matrix-head th[data-cluster="${c}"]`);
    expect(await head('member1').getAttribute('data-sync-mode')).toBe('Push');
    expect(await head('member2').getAttribute('data-sync-mode')).toBe('Pull');
    expect(await head('member3').getAttribute('data-ready')).toBe('False');
    expect(await head('member3').innerText()).toContain('NotReady');
    expect(await head('member1').innerText()).toContain('Ready');
    // the health filter
    await page.selectOption('#f-health', 'Unhealthy');
    expect(await page.locator('#matrix-body tr[data-row]').evaluateAll((trs) => trs.map((t) => (t as HTMLElement).dataset.row))).toEqual(['Deployment/default/sick']);
    await page.selectOption('#f-health', 'Healthy');
    expect(await page.locator('#matrix-body tr[data-row]').evaluateAll((trs) => trs.map((t) => (t as HTMLElement).dataset.row))).toContain('Deployment/default/fine');
    await page.selectOption('#f-health', '');
    // the staged rollout in the panel: its phase, stage and revision, and each cluster's place in it
    await sick.click();
    const rollout = page.locator('#panel p.rollout');
    await rollout.waitFor();
    expect(await rollout.getAttribute('data-stage')).toBe('0');
    expect(await rollout.getAttribute('data-revision')).toBeTruthy();
    expect(await page.locator('#panel table.rollout-clusters').innerText()).toMatch(/member1\s+stage 1 of 2 \(canary\)\s+Progressing: Unhealthy/);
    await page.close();
  });

  it('shows the events timeline of the plan when it is opened', async () => {
    const plan = await runCli(['plan', '-f', examples, '--at', '2024-01-01T00:00:00Z', '-o', 'json']);
    const events = (JSON.parse(plan.stdout) as { events: Array<{ reason: string; involvedObject: { kind: string; namespace?: string; name: string }; lastTimestamp: string }> }).events;
    expect(events.length).toBeGreaterThan(0);
    const page = await open(['-f', examples], 'events');
    expect(await page.locator('#events').isVisible()).toBe(true);
    expect(await page.locator('#events summary').innerText()).toBe(`Events timeline (${events.length})`);
    // nothing of it in the DOM until it is opened
    expect(await page.locator('#events-list li').count()).toBe(0);
    await page.locator('#events summary').click();
    await page.locator('#events-list li').first().waitFor();
    const items = await page.locator('#events-list li').allInnerTexts();
    expect(items).toHaveLength(events.length);
    const e = events.find((x) => x.reason === 'ScheduleBindingSucceed')!;
    expect(items).toContain(items.find((t) => t.includes(`${e.involvedObject.kind} ${e.involvedObject.namespace}/${e.involvedObject.name} ScheduleBindingSucceed`)));
    // newest first; of one time, the later recorded first
    const newest = events.map((x, i) => ({ x, i })).sort((p, q) => Date.parse(q.x.lastTimestamp) - Date.parse(p.x.lastTimestamp) || q.i - p.i)[0]!.x;
    expect(items[0]).toMatch(new RegExp(`^${newest.lastTimestamp} ${newest.involvedObject.kind} ${newest.involvedObject.namespace}/${newest.involvedObject.name} ${newest.reason}`));
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'report-events.png'), fullPage: true });
    await page.close();
  });

  it('draws only the rows in view at 300 templates, with the scroll height and group headings of all of them', async () => {
    const docs: string[] = [];
    for (const c of ['member1', 'member2', 'member3']) docs.push(`apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: ${c}}\nspec: {syncMode: Push}\n`);
    for (let p = 0; p < 3; p++) {
      docs.push(`apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: pol-${p}, namespace: team-${p}}\nspec:\n  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]\n  placement: {clusterAffinity: {clusterNames: [member1, member2, member3]}, replicaScheduling: {replicaSchedulingType: Duplicated}}\n`);
      for (let i = 0; i < 100; i++)
        docs.push(`apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: app-${String(i).padStart(3, '0')}, namespace: team-${p}}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: a${i}}}\n  template: {metadata: {labels: {app: a${i}}}, spec: {containers: [{name: main, image: "registry.example/a:${i}"}]}}\n`);
    }
    const file = path.join(dir, 'fleet-300.yaml');
    writeFileSync(file, docs.join('---\n'));
    const page = await open(['-f', file], 'fleet-300');
    const drawn = () => page.locator('#matrix-body tr[data-row]').evaluateAll((trs) => trs.map((t) => (t as HTMLElement).dataset.row!));
    const first = await drawn();
    expect(first[0]).toBe('Deployment/team-0/app-000');
    // the rows in view and a margin, not all 300
    expect(first.length).toBeGreaterThan(10);
    expect(first.length).toBeLessThan(150);
    expect(await page.locator('#count').innerText()).toMatch(/^300 of 300 templates/);
    // the spacer rows stand for the rest: the table is as tall as 300 rows and 3 headings
    const [rowHeight, tableHeight] = await page.evaluate(() => [document.querySelector('#matrix-body tr[data-row]')!.getBoundingClientRect().height, document.getElementById('matrix-body')!.getBoundingClientRect().height]);
    expect(Math.abs(tableHeight! - 303 * rowHeight!)).toBeLessThan(303);
    await page.evaluate(() => {
      const w = document.getElementById('matrix-wrap')!;
      w.scrollTop = w.scrollHeight;
    });
    await page.locator('tr[data-row="Deployment/team-2/app-099"]').waitFor();
    const last = await drawn();
    expect(last.includes('Deployment/team-0/app-000')).toBe(false);
    expect(last.at(-1)).toBe('Deployment/team-2/app-099');
    expect(await page.locator(cell('Deployment/team-2/app-099', 'member3')).getAttribute('data-state')).toBe('dispatched');
    // the middle: the heading of the group that starts there is drawn with its rows
    await page.evaluate(() => {
      const w = document.getElementById('matrix-wrap')!;
      w.scrollTop = (w.scrollHeight * 101) / 303 - w.clientHeight / 2;
    });
    await page.locator('#matrix-body tr.group', { hasText: 'team-1 · team-1/pol-1' }).waitFor();
    await page.locator(cell('Deployment/team-1/app-000', 'member2')).click();
    await page.locator('#panel pre.manifest[aria-label="manifest for member2"]').waitFor();
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'report-300.png') });
    await page.close();
  });

  it('marks the cells a changed copy of examples/ moves, with before and after in the panel', async () => {
    const copy = path.join(dir, 'examples');
    cpSync(examples, copy, { recursive: true });
    const web = path.join(copy, 'apps', 'web.yaml');
    writeFileSync(web, readFileSync(web, 'utf8').replace(/replicas: 4/, 'replicas: 8'));
    const page = await open(['-f', copy, '--diff-against', examples], 'diff');
    const changed = await page.locator('td.changed').evaluateAll((tds) => tds.map((t) => `${(t as HTMLElement).dataset.row} ${(t as HTMLElement).dataset.cluster}`));
    expect(changed).toEqual(['Deployment/default/web member1', 'Deployment/default/web member3']);
    await page.selectOption('#f-state', 'changed');
    expect(await page.locator('#matrix-body tr[data-row]').count()).toBe(1);
    await page.locator(cell('Deployment/default/web', 'member1')).click();
    const diff = page.locator('#panel table.diff');
    await diff.waitFor();
    expect(await diff.locator('tr', { hasText: 'spec.replicas' }).innerText()).toMatch(/spec\.replicas\s+3\s+5/);
    await page.screenshot({ path: path.join(ARTIFACTS_DIR, 'report-diff.png'), fullPage: true });
    await page.close();
  });
});
