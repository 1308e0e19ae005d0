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
    expect(await states('Deployment/default/legacy-api')).toEqual(['dispatched', 'dispatched', 'none']);
    expect(await page.locator(cell('Deployment/default/frontend', 'member1')).innerText()).toMatch(/3\s+dispatched\s+✓\s+Healthy/);
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
