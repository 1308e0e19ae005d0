/**
 * The report page's script (plain DOM: one matrix rebuilt as an HTML string per render stays fast at
 * 1,000 templates x 20 clusters and needs no framework). Bundled by esbuild into
 * src/report/client.generated.ts (`npm run generate`), inlined by html.ts.
 */
import type { FleetCell, FleetModel, FleetRow } from '../model.js';

interface Config {
  live?: { streamUrl: string };
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

let model = JSON.parse($('fleet-model').textContent!) as FleetModel;
const config = JSON.parse($('fleet-config').textContent!) as Config;
let open: { row: string; cluster?: string } | undefined;

const filters = ['f-namespace', 'f-policy', 'f-cluster', 'f-state'] as const;

function options(id: string, values: string[], all: string): void {
  const el = $<HTMLSelectElement>(id);
  const keep = el.value;
  el.innerHTML = `<option value="">${esc(all)}</option>` + values.map((v) => `<option value="${esc(v)}">${esc(v)}</option>`).join('');
  el.value = values.includes(keep) ? keep : '';
}

function cellText(c: FleetCell): string {
  if (c.state === 'absent') return c.change !== undefined ? 'removed' : '';
  const marks = [c.evicting ? '⇢' : '', c.failedOver ? '↻' : ''].join('');
  const applied = c.applied === undefined ? '' : c.applied ? '✓' : '✗';
  const state = c.state === 'held' ? `held: stage ${c.stage ?? '?'}` : c.state;
  return `<span class="r">${c.replicas ?? '-'}</span> <span class="s">${esc(state)}</span> <span class="a" title="Applied">${applied}</span> <span class="h">${esc(c.health ?? '')}</span>${marks ? ` <span class="m" title="${c.evicting ? 'graceful eviction' : ''}${c.failedOver ? ' failover history' : ''}">${marks}</span>` : ''}`;
}

function visible(r: FleetRow, ns: string, policy: string, cluster: string, state: string): boolean {
  if (ns && r.namespace !== ns) return false;
  if (policy && r.policy !== policy) return false;
  if (!cluster && !state) return true;
  return r.cells.some((c) => (!cluster || c.cluster === cluster) && (!state || (state === 'changed' ? c.change !== undefined : c.state === state)));
}

function render(): void {
  options('f-namespace', model.namespaces, 'all namespaces');
  options('f-policy', model.policies, 'all policies');
  options('f-cluster', model.clusters, 'all clusters');
  const [ns, policy, cluster, state] = filters.map((id) => $<HTMLSelectElement>(id).value) as [string, string, string, string];
  const cols = cluster ? [cluster] : model.clusters;
  $('matrix-head').innerHTML = `<tr><th scope="col">template</th>${cols.map((c) => `<th scope="col">${esc(c)}</th>`).join('')}</tr>`;
  const out: string[] = [];
  let shown = 0;
  for (const g of model.groups) {
    const rows = g.rows.map((i) => model.rows[i]!).filter((r) => visible(r, ns, policy, cluster, state));
    if (!rows.length) continue;
    out.push(`<tr class="group"><th colspan="${cols.length + 1}" scope="rowgroup">${esc(g.namespace || '(cluster-scoped)')} · ${esc(g.policy)}</th></tr>`);
    for (const r of rows) {
      shown++;
      const byCluster = new Map(r.cells.map((c) => [c.cluster, c]));
      out.push(
        `<tr data-row="${esc(r.key)}"><th scope="row"><button class="tpl" data-row="${esc(r.key)}">${esc(r.key)}</button></th>` +
          cols
            .map((c) => {
              const cell = byCluster.get(c);
              if (!cell) return '<td class="none"></td>';
              const cls = `${cell.state}${cell.change !== undefined ? ' changed' : ''}`;
              return `<td class="${cls}" data-row="${esc(r.key)}" data-cluster="${esc(c)}" data-state="${cell.state}" tabindex="0">${cellText(cell)}</td>`;
            })
            .join('') +
          '</tr>',
      );
    }
  }
  $('matrix-body').innerHTML = out.join('');
  $('count').textContent = `${shown} of ${model.rows.length} templates · ${model.clusters.length} clusters · at ${model.at}`;
  renderPanel();
  $('events').hidden = model.events.length === 0;
  $('events-count').textContent = String(model.events.length);
  if ($<HTMLDetailsElement>('events-details').open) renderEvents();
}

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

function renderPanel(): void {
  const panel = $('panel');
  const row = open && model.rows.find((r) => r.key === open!.row);
  if (!row) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const parts: string[] = [`<h2>${esc(row.key)}</h2><p>policy ${esc(row.policy)}${row.binding ? ` · binding ${esc(row.binding)}` : ''} <button id="close">close</button></p>`];
  const changes = model.diff.filter((c) => c.template === row.key && (!open!.cluster || c.cluster === open!.cluster));
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
  for (const w of row.works.filter((x) => !open!.cluster || x.cluster === open!.cluster)) {
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
      parts.push(`<pre class="manifest" aria-label="manifest for ${esc(w.cluster)}">${lines.join("")}</pre>`);
    }
  }
  if (row.bindingObject) parts.push(`<details><summary>binding</summary><pre>${esc(JSON.stringify(row.bindingObject, null, 2))}</pre></details>`);
  panel.innerHTML = parts.join('');
  $('close').onclick = () => {
    open = undefined;
    renderPanel();
  };
}

/** Only while the timeline is open: a large fleet has tens of thousands of events, too many to rebuild per filter. */
function renderEvents(): void {
  $('events-list').innerHTML = model.events
    .map((e) => `<li class="${esc(e.type)}"><time>${esc(e.time)}</time> ${esc(e.object)} <b>${esc(e.reason)}</b> ${esc(e.message)}${e.count > 1 ? ` (×${e.count})` : ''}</li>`)
    .join('');
}

$('matrix-body').addEventListener('click', (ev) => {
  const t = (ev.target as HTMLElement).closest('[data-row]') as HTMLElement | null;
  if (!t) return;
  open = { row: t.dataset.row!, ...(t.dataset.cluster ? { cluster: t.dataset.cluster } : {}) };
  renderPanel();
});
$('matrix-body').addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter' && (ev.target as HTMLElement).dataset.cluster) (ev.target as HTMLElement).click();
});
for (const id of filters) $(id).addEventListener('change', render);
$('events-details').addEventListener('toggle', () => {
  if ($<HTMLDetailsElement>('events-details').open) renderEvents();
  else $('events-list').innerHTML = '';
});

if (config.live) {
  // Relative to the page, so the dashboard works behind a proxy's path prefix.
  const source = new EventSource(config.live.streamUrl);
  source.addEventListener('model', (ev) => {
    model = JSON.parse((ev as MessageEvent<string>).data) as FleetModel;
    render();
  });
}
render();
document.body.dataset.ready = 'true';
