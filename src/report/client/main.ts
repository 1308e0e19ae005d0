/**
 * The report page's script, plain DOM. Bundled by esbuild into src/report/client.generated.ts
 * (`npm run generate`), inlined by html.ts.
 *
 * At 1,000 templates x 20 clusters the page stays fast because it does little: filters run over the small
 * matrix model, only the rows in view (plus a margin) are in the DOM, with spacer rows keeping the scroll
 * height right, and a row's detail (manifests, binding, diff) is inflated or fetched only when it is opened.
 */
import type { FleetCell, FleetEvent, FleetModel, FleetRow, FleetRowDetail } from '../model.js';
import { errorMessage } from '../../json/error.js';
import { DETAIL_ID_PREFIX, EVENTS_ID } from '../page-ids.js';

interface Config {
  live?: { streamUrl: string; detailUrl: string; eventsUrl: string };
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

let model = JSON.parse($('fleet-model').textContent!) as FleetModel;
const config = JSON.parse($('fleet-config').textContent!) as Config;
let open: { row: string; cluster?: string } | undefined;

const filters = ['f-namespace', 'f-policy', 'f-cluster', 'f-state'] as const;
/** Rows of the table drawn beyond the visible ones, above and below: scrolling a little draws nothing. */
const MARGIN = 15;
/** Fixed column widths (table-layout: fixed): the browser lays out only the drawn rows, and columns keep their width while scrolling. */
const TEMPLATE_WIDTH = 280;
const CLUSTER_WIDTH = 170;
/** The visible lines after filtering: a row index, or -(group index) - 1 for a group's heading. */
let lines: number[] = [];
let cols: string[] = [];
let rowHeight = 22;
let measured = false;
let headHeight = 0;
let drawn = { first: -1, last: -1 };

// ---- the embedded or fetched parts -------------------------------------------------------------------

const parsed = () => (document.readyState === 'loading' ? new Promise<void>((res) => document.addEventListener('DOMContentLoaded', () => res(), { once: true })) : Promise.resolve());

/** An embedded part: base64 of gzipped JSON (html.ts), inflated by the browser's own DecompressionStream. */
async function embedded<T>(id: string): Promise<T | undefined> {
  let el = document.getElementById(id);
  if (!el) {
    await parsed();
    el = document.getElementById(id);
  }
  if (!el) return undefined;
  const bin = atob(el.textContent!.trim());
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text();
  return JSON.parse(text) as T;
}

async function fetchJson<T>(url: string): Promise<T | undefined> {
  const r = await fetch(url, { headers: { accept: 'application/json' } });
  if (r.status === 404) return undefined;
  if (!r.ok) throw new Error(`GET ${url}: ${r.status} ${r.statusText}`);
  return (await r.json()) as T;
}

/** Details already read; a live model replaces them all (they may have changed). */
let details = new Map<string, Promise<FleetRowDetail | undefined>>();

function detailOf(key: string): Promise<FleetRowDetail | undefined> {
  let d = details.get(key);
  if (!d) {
    const index = model.rows.findIndex((r) => r.key === key);
    d = config.live ? fetchJson<FleetRowDetail>(`${config.live.detailUrl}?row=${encodeURIComponent(key)}`) : embedded<FleetRowDetail>(`${DETAIL_ID_PREFIX}${index}`);
    details.set(key, d);
    d.catch(() => details.delete(key));
  }
  return d;
}

const eventsOf = (): Promise<FleetEvent[] | undefined> => (config.live ? fetchJson<FleetEvent[]>(config.live.eventsUrl) : embedded<FleetEvent[]>(EVENTS_ID));

// ---- the matrix ---------------------------------------------------------------------------------------

function options(id: string, values: string[], all: string): void {
  const el = $<HTMLSelectElement>(id);
  const keep = el.value;
  el.innerHTML = `<option value="">${esc(all)}</option>` + values.map((v) => `<option value="${esc(v)}">${esc(v)}</option>`).join('');
  el.value = values.includes(keep) ? keep : '';
}

function cellText(c: FleetCell): string {
  if (c.state === 'absent') return c.reason !== undefined ? `<span class="s">${esc(model.reasons[c.reason]!.split(':')[0])}</span>` : c.changed ? 'removed' : '';
  const marks = [c.evicting ? '⇢' : '', c.failedOver ? '↻' : ''].join('');
  const applied = c.applied === undefined ? '' : c.applied ? '✓' : '✗';
  const state = c.state === 'held' ? `held: stage ${c.stage ?? '?'}` : c.state;
  return `<span class="r">${c.replicas ?? '-'}</span> <span class="s">${esc(state)}</span> <span class="a" title="Applied">${applied}</span> <span class="h">${esc(c.health ?? '')}</span>${marks ? ` <span class="m" title="${c.evicting ? 'graceful eviction' : ''}${c.failedOver ? ' failover history' : ''}">${marks}</span>` : ''}`;
}

function visible(r: FleetRow, ns: string, policy: string, cluster: string, state: string): boolean {
  if (ns && r.namespace !== ns) return false;
  if (policy && r.policy !== policy) return false;
  if (!cluster && !state) return true;
  return r.cells.some((c) => (!cluster || c.cluster === cluster) && (!state || (state === 'changed' ? c.changed === true : c.state === state)));
}

/** The filters applied to the model: which lines the table has, then the part of them in view drawn. */
function render(): void {
  options('f-namespace', model.namespaces, 'all namespaces');
  options('f-policy', model.policies, 'all policies');
  options('f-cluster', model.clusters, 'all clusters');
  const [ns, policy, cluster, state] = filters.map((id) => $<HTMLSelectElement>(id).value) as [string, string, string, string];
  cols = cluster ? [cluster] : model.clusters;
  $('matrix').style.width = `${TEMPLATE_WIDTH + cols.length * CLUSTER_WIDTH}px`;
  $('matrix-head').innerHTML = `<tr><th scope="col" style="width:${TEMPLATE_WIDTH}px">template</th>${cols.map((c) => `<th scope="col" style="width:${CLUSTER_WIDTH}px">${esc(c)}</th>`).join('')}</tr>`;
  headHeight = $('matrix-head').offsetHeight;
  lines = [];
  let shown = 0;
  model.groups.forEach((g, gi) => {
    const start = lines.length;
    for (const i of g.rows) if (visible(model.rows[i]!, ns, policy, cluster, state)) lines.push(i);
    if (lines.length === start) return;
    shown += lines.length - start;
    lines.splice(start, 0, -gi - 1);
  });
  $('count').textContent = `${shown} of ${model.rows.length} templates · ${model.clusters.length} clusters · at ${model.at}`;
  if (model.title && $('title').textContent !== model.title) {
    $('title').textContent = model.title;
    document.title = model.title;
  }
  draw(true);
  if (open) void showPanel();
  $('events').hidden = model.events === 0;
  $('events-count').textContent = String(model.events);
  if ($<HTMLDetailsElement>('events-details').open) void renderEvents();
}

function line(n: number): string {
  if (n < 0) {
    const g = model.groups[-n - 1]!;
    return `<tr class="group"><th colspan="${cols.length + 1}" scope="rowgroup">${esc(g.namespace || '(cluster-scoped)')} · ${esc(g.policy)}</th></tr>`;
  }
  const r = model.rows[n]!;
  const key = esc(r.key);
  const byCluster = new Map(r.cells.map((c) => [c.cluster, c]));
  let out = `<tr data-row="${key}"><th scope="row"><button class="tpl" data-row="${key}" title="${key}">${key}</button></th>`;
  for (const c of cols) {
    const cell = byCluster.get(c);
    if (!cell) {
      out += '<td class="none"></td>';
      continue;
    }
    const title = cell.reason !== undefined ? ` title="${esc(model.reasons[cell.reason])}"` : '';
    out += `<td class="${cell.state}${cell.changed ? ' changed' : ''}" data-row="${key}" data-cluster="${esc(c)}" data-state="${cell.state}"${title} tabindex="0">${cellText(cell)}</td>`;
  }
  return out + '</tr>';
}

const pad = (rows: number) => (rows > 0 ? `<tr class="pad" aria-hidden="true"><td colspan="${cols.length + 1}" style="height:${rows * rowHeight}px"></td></tr>` : '');

/** Only the lines in view plus MARGIN either side; spacer rows stand for the rest. */
function draw(force: boolean): void {
  const wrap = $('matrix-wrap');
  const top = Math.max(0, wrap.scrollTop - headHeight);
  const first = Math.max(0, Math.floor(top / rowHeight) - MARGIN);
  const last = Math.min(lines.length, Math.ceil((top + (wrap.clientHeight || window.innerHeight)) / rowHeight) + MARGIN);
  if (!force && first === drawn.first && last === drawn.last) return;
  drawn = { first, last };
  const out: string[] = [pad(first)];
  for (let i = first; i < last; i++) out.push(line(lines[i]!));
  out.push(pad(lines.length - last));
  const body = $('matrix-body');
  body.innerHTML = out.join('');
  // The spacers assume every line is as tall as a drawn one: measured once, from the real layout.
  if (measured) return;
  const h = body.querySelector<HTMLElement>('tr[data-row]')?.getBoundingClientRect().height;
  if (!h) return;
  measured = true;
  if (Math.abs(h - rowHeight) > 0.5) {
    rowHeight = h;
    draw(true);
  }
}

let drawPending = false;
$('matrix-wrap').addEventListener('scroll', () => {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    draw(false);
  });
});
window.addEventListener('resize', () => draw(false));

// ---- the panel ----------------------------------------------------------------------------------------

/** The manifest as indented JSON, each line marked when its field is one the overrides changed. */
function manifestLines(v: unknown, path: string, indent: string, key: string, marked: Set<string>, out: string[], last: boolean): void {
  const comma = last ? '' : ',';
  const label = key ? `${esc(JSON.stringify(key))}: ` : '';
  const hit = marked.has(path);
  const open = (s: string) => out.push(`<span class="${hit ? 'ov' : ''}" data-path="${esc(path)}">${indent}${label}${s}</span>`);
  const child = (k: string) => (path ? `${path}.${/^[A-Za-z_][\w-]*$/.test(k) ? k : JSON.stringify(k)}` : k);
  if (Array.isArray(v) && v.length) {
    open('[');
    v.forEach((x, i) => manifestLines(x, `${path}[${i}]`, indent + '  ', '', marked, out, i === v.length - 1));
    out.push(`<span>${indent}]${comma}</span>`);
  } else if (v !== null && typeof v === 'object' && Object.keys(v).length) {
    open('{');
    const entries = Object.entries(v as Record<string, unknown>);
    entries.forEach(([k, x], i) => manifestLines(x, child(k), indent + '  ', k, marked, out, i === entries.length - 1));
    out.push(`<span>${indent}}${comma}</span>`);
  } else open(esc(JSON.stringify(v)) + comma);
}

function panelHtml(row: FleetRow, detail: FleetRowDetail | undefined, cluster: string | undefined): string {
  const parts: string[] = [`<h2>${esc(row.key)}</h2><p>policy ${esc(row.policy)}${row.binding ? ` · binding ${esc(row.binding)}` : ''} <button id="close">close</button></p>`];
  const absent = row.cells.filter((c) => c.reason !== undefined && (!cluster || c.cluster === cluster));
  if (absent.length) {
    parts.push('<h3>Not placed</h3><ul class="absent">');
    for (const c of absent) parts.push(`<li><b>${esc(c.cluster)}</b>: ${esc(model.reasons[c.reason!])}</li>`);
    parts.push('</ul>');
  }
  if (!detail) return parts.join('') + '<p>no detail for this template any more</p>';
  const changes = detail.changes.filter((c) => !cluster || c.cluster === cluster);
  if (changes.length) {
    parts.push('<h3>Change from the old plan</h3>');
    for (const c of changes) {
      parts.push(`<table class="diff"><caption>${esc(c.cluster)}: ${esc(c.change)}</caption><tr><th>field</th><th>before</th><th>after</th></tr>`);
      if (c.replicas.before !== c.replicas.after) parts.push(`<tr><td>replicas</td><td>${esc(c.replicas.before ?? '-')}</td><td>${esc(c.replicas.after ?? '-')}</td></tr>`);
      if (c.dispatch.before !== c.dispatch.after) parts.push(`<tr><td>dispatch</td><td>${esc(c.dispatch.before ?? '-')}</td><td>${esc(c.dispatch.after ?? '-')}</td></tr>`);
      for (const f of c.fields) parts.push(`<tr><td>${esc(f.path)}</td><td class="before">${esc(JSON.stringify(f.before) ?? '-')}</td><td class="after">${esc(JSON.stringify(f.after) ?? '-')}</td></tr>`);
      parts.push('</table>');
    }
  }
  for (const w of detail.works.filter((x) => !cluster || x.cluster === cluster)) {
    parts.push(`<h3>Work ${esc(w.namespace)}/${esc(w.name)} → ${esc(w.cluster)} (${esc(w.dispatch)})</h3>`);
    parts.push(`<p>overrides: ${w.overrides.length ? w.overrides.map(esc).join(', ') : 'none'} · conditions: ${w.conditions.map((c) => `${esc(c.type)}=${esc(c.status)}`).join(', ') || 'none'}</p>`);
    if (w.changed.length) {
      parts.push('<table class="fields"><caption>fields that differ from the template</caption><tr><th>field</th><th>template</th><th>manifest</th></tr>');
      for (const f of w.changed) parts.push(`<tr><td>${esc(f.path)}</td><td>${esc(JSON.stringify(f.before) ?? '-')}</td><td class="ov">${esc(JSON.stringify(f.after) ?? '-')}</td></tr>`);
      parts.push('</table>');
    }
    if (w.manifest) {
      const lines: string[] = [];
      manifestLines(w.manifest, '', '', '', new Set(w.changed.map((f) => f.path)), lines, true);
      parts.push(`<pre class="manifest" aria-label="manifest for ${esc(w.cluster)}">${lines.join('')}</pre>`);
    }
  }
  if (detail.bindingObject) parts.push(`<details><summary>binding</summary><pre>${esc(JSON.stringify(detail.bindingObject, null, 2))}</pre></details>`);
  return parts.join('');
}

/** The open row's panel; the detail arrives later than the click, and a newer click wins. */
async function showPanel(): Promise<void> {
  const panel = $('panel');
  const want = open;
  const row = want && model.rows.find((r) => r.key === want.row);
  if (!want || !row) {
    panel.hidden = true;
    return;
  }
  let detail: FleetRowDetail | undefined;
  try {
    detail = await detailOf(row.key);
  } catch (e) {
    if (open !== want) return;
    panel.hidden = false;
    panel.innerHTML = `<p role="alert">could not read the detail of ${esc(row.key)}: ${esc(errorMessage(e))}; reload the page to try again</p>`;
    return;
  }
  if (open !== want) return;
  panel.hidden = false;
  panel.innerHTML = panelHtml(row, detail, want.cluster);
  panel.dataset.row = row.key;
  $('close').onclick = () => {
    open = undefined;
    void showPanel();
  };
}

// ---- the events timeline ------------------------------------------------------------------------------

/** A page of the timeline at a time: a large fleet has tens of thousands of events. */
const EVENTS_PAGE = 1000;
let eventsShown = EVENTS_PAGE;

async function renderEvents(): Promise<void> {
  const events = (await eventsOf()) ?? [];
  if (!$<HTMLDetailsElement>('events-details').open) return;
  const shown = events.slice(0, eventsShown);
  $('events-list').innerHTML =
    shown.map((e) => `<li class="${esc(e.type)}"><time>${esc(e.time)}</time> ${esc(e.object)} <b>${esc(e.reason)}</b> ${esc(e.message)}${e.count > 1 ? ` (×${e.count})` : ''}</li>`).join('') +
    (events.length > shown.length ? `<li><button id="events-more">show ${Math.min(EVENTS_PAGE, events.length - shown.length)} more of ${events.length - shown.length}</button></li>` : '');
  const more = document.getElementById('events-more');
  if (more)
    more.onclick = () => {
      eventsShown += EVENTS_PAGE;
      void renderEvents();
    };
}

// ---- wiring -------------------------------------------------------------------------------------------

$('matrix-body').addEventListener('click', (ev) => {
  const t = (ev.target as HTMLElement).closest('[data-row]') as HTMLElement | null;
  if (!t) return;
  open = { row: t.dataset.row!, ...(t.dataset.cluster ? { cluster: t.dataset.cluster } : {}) };
  void showPanel();
});
$('matrix-body').addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && (ev.target as HTMLElement).dataset.cluster) (ev.target as HTMLElement).click();
});
for (const id of filters) $(id).addEventListener('change', render);
$('events-details').addEventListener('toggle', () => {
  if ($<HTMLDetailsElement>('events-details').open) void renderEvents();
  else $('events-list').innerHTML = '';
});

if (config.live) {
  // Relative to the page, so the dashboard works behind a proxy's path prefix.
  const source = new EventSource(config.live.streamUrl);
  source.addEventListener('model', (ev) => {
    model = JSON.parse((ev as MessageEvent<string>).data) as FleetModel;
    details = new Map();
    render();
  });
}
render();
// The bench's "open" (bench/report.bench.ts), on the page's own clock: the matrix drawn, then the frame that shows it.
performance.mark('fleet-ready');
requestAnimationFrame(() => setTimeout(() => performance.mark('fleet-painted'), 0));
document.body.dataset.ready = 'true';
