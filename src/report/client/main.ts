/**
 * The report page's script, plain DOM. Bundled by esbuild into src/report/client.generated.ts
 * (`npm run generate`), inlined by html.ts.
 *
 * At 1,000 templates x 20 clusters the page stays fast because it does little: filters run over the small
 * matrix model, only the rows in view (plus a margin) are in the DOM, with spacer rows keeping the scroll
 * height right, and a row's detail (manifests, binding, diff) is inflated or fetched only when it is opened.
 */
import type { FleetCell, FleetClusterHead, FleetEvent, FleetModel, FleetRollout, FleetRow, FleetRowDetail } from '../model.js';
import { errorMessage } from '../../json/error.js';
import { DETAIL_ID_PREFIX, EVENTS_ID } from '../page-ids.js';
import { healthMark, MARKS, readyMark, SWATCHES, type MarkKey } from './marks.js';

interface Config {
  live?: { streamUrl: string; detailUrl: string; eventsUrl: string };
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

let model = JSON.parse($('fleet-model').textContent!) as FleetModel;
const config = JSON.parse($('fleet-config').textContent!) as Config;
let open: { row: string; cluster?: string } | undefined;

const filters = ['f-namespace', 'f-policy', 'f-cluster', 'f-state', 'f-health'] as const;
/** Rows of the table drawn beyond the visible ones, above and below: scrolling a little draws nothing. */
const MARGIN = 15;
/**
 * Fixed column widths (table-layout: fixed): the browser lays out only the drawn rows, and columns keep their
 * width while scrolling. Each column is as wide as its widest text in the whole model (never cut off), at
 * least these; a drawn cell that still overflows (a font the estimate missed) widens its column.
 */
const TEMPLATE_WIDTH = 280;
const CLUSTER_WIDTH = 170;
/** A cell's padding and border, and room for marks drawn in a different weight or with a frame. */
const CELL_SLACK = 24;
let templateWidth = TEMPLATE_WIDTH;
let widths = new Map<string, number>();
let widthsOf: FleetModel | undefined;
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

const mark = (key: MarkKey): string => `<span class="mk mk-${key}" data-mark="${key}" title="${esc(MARKS[key].text)}">${esc(MARKS[key].glyph)}</span>`;

/** A cell's parts as HTML and as the plain text the column is measured by. */
function cellParts(c: FleetCell): { html: string[]; text: string[] } {
  const html: string[] = [];
  const text: string[] = [];
  const add = (h: string, t: string) => (html.push(h), text.push(t));
  const addMark = (key: MarkKey) => add(mark(key), MARKS[key].glyph);
  if (c.state === 'absent') {
    if (c.reason !== undefined) {
      const word = model.reasons[c.reason]!.split(':')[0]!;
      add(`<span class="s">${esc(word)}</span>`, word);
    } else if (c.changed) add('removed', 'removed');
    if (c.changed) addMark('changed');
    return { html, text };
  }
  const replicas = String(c.replicas ?? '-');
  add(`<span class="r">${esc(replicas)}</span>`, replicas);
  const state = c.state === 'held' ? `held: stage ${c.stage ?? '?'}` : c.state;
  add(`<span class="s">${esc(state)}</span>`, state);
  if (c.applied !== undefined) addMark(c.applied ? 'applied' : 'notApplied');
  if (c.health) addMark(healthMark(c.health));
  if (c.evicting) addMark('evicting');
  if (c.failedOver) addMark('failedOver');
  if (c.changed) addMark('changed');
  return { html, text };
}

/** What a cell says in words, for its tooltip (the marks in full). */
function cellTitle(c: FleetCell): string {
  if (c.reason !== undefined) return model.reasons[c.reason]!;
  const words = [
    c.state === 'absent' ? 'removed by the change' : `${c.replicas ?? '-'} replicas, ${c.state === 'held' ? `held by rollout stage ${c.stage ?? '?'}` : c.state}`,
    c.applied === undefined ? '' : c.applied ? 'Applied' : 'not Applied',
    c.health ? `health ${c.health}` : '',
    c.evicting ? 'graceful eviction' : '',
    c.failedOver ? 'in the failover history' : '',
    c.changed && c.state !== 'absent' ? 'changed from the old plan' : '',
  ];
  return words.filter(Boolean).join(', ');
}

function headHtml(h: FleetClusterHead): { html: string; text: string } {
  const marks: MarkKey[] = [...(h.syncMode ? [h.syncMode] : []), readyMark(h.ready)];
  return { html: `${esc(h.name)} ${marks.map(mark).join(' ')}`, text: [h.name, ...marks.map((k) => MARKS[k].glyph)].join(' ') };
}

// ---- column widths ------------------------------------------------------------------------------------

let ruler: CanvasRenderingContext2D | null | undefined;
const textWidths = new Map<string, number>();

/** The width of a text in the table's font, bold (the widest weight it uses); once per distinct text: cells repeat a few texts thousands of times. */
function textWidth(text: string): number {
  let w = textWidths.get(text);
  if (w === undefined) {
    if (ruler === undefined) {
      ruler = document.createElement('canvas').getContext('2d');
      const cs = getComputedStyle($('matrix'));
      if (ruler) ruler.font = `bold ${cs.fontSize} ${cs.fontFamily}`;
    }
    w = ruler ? ruler.measureText(text).width : text.length * 9;
    textWidths.set(text, w);
  }
  return w;
}

/** Each column as wide as its widest text over the whole model: filtering or scrolling never changes a width. */
function measureColumns(): void {
  if (widthsOf === model) return;
  widthsOf = model;
  widths = new Map(model.clusterHeads.map((h) => [h.name, Math.max(CLUSTER_WIDTH, Math.ceil(textWidth(headHtml(h).text)) + CELL_SLACK)]));
  let tw = TEMPLATE_WIDTH;
  for (const r of model.rows) {
    tw = Math.max(tw, Math.ceil(textWidth(r.key)) + CELL_SLACK);
    for (const c of r.cells) widths.set(c.cluster, Math.max(widths.get(c.cluster) ?? CLUSTER_WIDTH, Math.ceil(textWidth(cellParts(c).text.join(' '))) + CELL_SLACK));
  }
  templateWidth = tw;
}

const widthOf = (cluster: string) => widths.get(cluster) ?? CLUSTER_WIDTH;

function applyWidths(): void {
  $('matrix').style.width = `${templateWidth + cols.reduce((n, c) => n + widthOf(c), 0)}px`;
  const heads = $('matrix-head').querySelectorAll<HTMLElement>('th');
  heads.forEach((th) => (th.style.width = `${th.dataset.cluster ? widthOf(th.dataset.cluster) : templateWidth}px`));
}

/** A drawn cell the estimate left too narrow widens its column (widths only grow, so this settles). */
function fitColumns(): void {
  let grew = false;
  for (const el of document.querySelectorAll<HTMLElement>('#matrix-head th, #matrix-body td[data-cluster], #matrix-body th[scope="row"]')) {
    const over = el.scrollWidth - el.clientWidth;
    if (over <= 0) continue;
    grew = true;
    if (el.dataset.cluster) widths.set(el.dataset.cluster, widthOf(el.dataset.cluster) + over + 2);
    else templateWidth = Math.max(templateWidth, el.offsetWidth + over + 2);
  }
  if (grew) applyWidths();
}

/** The health filter's values: one health, or `not-healthy` for Unhealthy and Unknown together. */
const healthMatches = (c: FleetCell, health: string) => (health === 'not-healthy' ? c.health === 'Unhealthy' || c.health === 'Unknown' : c.health === health);

/** A row stays when one of its cells passes the cluster, state and health filters together. */
function visible(r: FleetRow, ns: string, policy: string, cluster: string, state: string, health: string): boolean {
  if (ns && r.namespace !== ns) return false;
  if (policy && r.policy !== policy) return false;
  if (!cluster && !state && !health) return true;
  return r.cells.some((c) => (!cluster || c.cluster === cluster) && (!state || (state === 'changed' ? c.changed === true : c.state === state)) && (!health || healthMatches(c, health)));
}

/** The filters applied to the model: which lines the table has, then the part of them in view drawn. */
function render(): void {
  options('f-namespace', model.namespaces, 'all namespaces');
  options('f-policy', model.policies, 'all policies');
  options('f-cluster', model.clusters, 'all clusters');
  const [ns, policy, cluster, state, health] = filters.map((id) => $<HTMLSelectElement>(id).value) as [string, string, string, string, string];
  cols = cluster ? [cluster] : model.clusters;
  measureColumns();
  const heads = new Map(model.clusterHeads.map((h) => [h.name, h]));
  $('matrix-head').innerHTML = `<tr><th scope="col">template</th>${cols
    .map((c) => {
      const h = heads.get(c) ?? { name: c, ready: 'Unknown' as const };
      return `<th scope="col" data-cluster="${esc(c)}"${h.syncMode ? ` data-sync-mode="${h.syncMode}"` : ''} data-ready="${h.ready}">${headHtml(h).html}</th>`;
    })
    .join('')}</tr>`;
  applyWidths();
  headHeight = $('matrix-head').offsetHeight;
  lines = [];
  let shown = 0;
  model.groups.forEach((g, gi) => {
    const start = lines.length;
    for (const i of g.rows) if (visible(model.rows[i]!, ns, policy, cluster, state, health)) lines.push(i);
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
    const health = cell.health ? ` h-${cell.health}` : '';
    out += `<td class="${cell.state}${health}${cell.changed ? ' changed' : ''}" data-row="${key}" data-cluster="${esc(c)}" data-state="${cell.state}"${cell.health ? ` data-health="${cell.health}"` : ''} title="${esc(cellTitle(cell))}" tabindex="0">${cellParts(cell).html.join(' ')}</td>`;
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
  fitColumns();
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

const stageName = (r: FleetRollout, i: number) => {
  const name = r.stages[i]?.name;
  return `stage ${i + 1} of ${r.stages.length}${name ? ` (${esc(name)})` : ''}`;
};

/** The staged rollout: where it stands (phase, stage, revision) and each cluster's stage, state and revision. */
function rolloutHtml(r: FleetRollout, cluster: string | undefined): string {
  const stage = r.currentStage >= r.stages.length ? 'all stages passed' : stageName(r, r.currentStage);
  const parts = [
    `<h3>Rollout</h3><p class="rollout" data-phase="${esc(r.phase ?? '')}" data-stage="${r.currentStage}" data-revision="${esc(r.revision)}">${esc(r.phase ?? 'Progressing')} · ${stage} · revision ${esc(r.revision)}${r.stableRevision ? ` (stable ${esc(r.stableRevision)})` : ''}</p>`,
    '<table class="fields rollout-clusters"><tr><th>cluster</th><th>stage</th><th>state</th><th>revision</th></tr>',
  ];
  for (const c of r.clusters.filter((x) => !cluster || x.name === cluster)) {
    parts.push(`<tr data-cluster="${esc(c.name)}"><td>${esc(c.name)}</td><td>${stageName(r, c.stage)}</td><td>${esc(c.state)}${c.reason ? `: ${esc(c.reason)}` : ''}</td><td>${esc(c.revision ?? '-')}</td></tr>`);
  }
  return parts.join('') + '</table>';
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
  if (detail.rollout) parts.push(rolloutHtml(detail.rollout, cluster));
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
    shown.map((e) => `<li class="${esc(e.type)}" data-type="${esc(e.type)}">${e.type === 'Warning' ? `${mark('warning')} ` : ''}<time>${esc(e.time)}</time> ${esc(e.object)} <b>${esc(e.reason)}</b> ${esc(e.message)}${e.count > 1 ? ` (×${e.count})` : ''}</li>`).join('') +
    (events.length > shown.length ? `<li><button id="events-more">show ${Math.min(EVENTS_PAGE, events.length - shown.length)} more of ${events.length - shown.length}</button></li>` : '');
  const more = document.getElementById('events-more');
  if (more)
    more.onclick = () => {
      eventsShown += EVENTS_PAGE;
      void renderEvents();
    };
}

// ---- the legend ---------------------------------------------------------------------------------------

/** Every colour and every mark the page can draw, from the same tables the cells, heads and events use. */
function renderLegend(): void {
  $('legend-list').innerHTML =
    SWATCHES.map((s) => `<li data-swatch="${esc(s.cls)}"><span class="sw ${esc(s.cls)}"></span> ${esc(s.text)}</li>`).join('') +
    (Object.keys(MARKS) as MarkKey[]).map((k) => `<li data-legend="${k}"><span class="mk mk-${k}">${esc(MARKS[k].glyph)}</span> ${esc(MARKS[k].text)}</li>`).join('');
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
renderLegend();
render();
// The bench's "open" (bench/report.bench.ts), on the page's own clock: the matrix drawn, then the frame that shows it.
performance.mark('fleet-ready');
requestAnimationFrame(() => setTimeout(() => performance.mark('fleet-painted'), 0));
document.body.dataset.ready = 'true';
