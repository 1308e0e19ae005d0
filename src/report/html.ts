/**
 * The report as one self-contained HTML document: styles, the model and the page's script inline, no
 * network fetch of any kind, so a CI job can attach it to a pull request.
 *
 * Only the matrix is parsed when the page opens. Each row's detail (manifests, binding, diff) and the events
 * timeline ride along gzipped and base64-encoded, one inert <script> element each, and are inflated in the
 * browser (DecompressionStream) when opened: at 1,000 templates x 20 clusters they are ~95% of the page.
 */
import { gzipSync } from 'node:zlib';
import type { FleetEvent, FleetModel, FleetRowDetail } from './model.js';
import { REPORT_CLIENT } from './client.generated.js';
import { DETAIL_ID_PREFIX, EVENTS_ID } from './page-ids.js';

/** The dashboard's URLs, relative to the page (so that a proxy's path prefix keeps working). */
export interface LiveUrls {
  /** Server-sent events: `event: model`, data a FleetModel. */
  streamUrl: string;
  /** GET `<detailUrl>?row=<key>`: a FleetRowDetail. */
  detailUrl: string;
  /** GET: the FleetEvent[] of the timeline. */
  eventsUrl: string;
}

export interface ReportHtmlOptions {
  title?: string;
  /** The dashboard: the page follows the stream and fetches details and events on demand. */
  live?: LiveUrls;
}

/** What the page carries: the matrix always; without `live`, every row's detail (index-aligned with rows) and the events. */
export interface ReportContent {
  model: FleetModel;
  details?: readonly FleetRowDetail[];
  events?: readonly FleetEvent[];
}


// The detail is highly repetitive (one template's Works differ in a few fields): gzip shrinks it ~20x.
const packed = (v: unknown): string => gzipSync(JSON.stringify(v)).toString('base64');

/** JSON safe inside a <script> element: no `</script>` or `<!--` can end it early. */
const scriptJson = (v: unknown): string => JSON.stringify(v).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const STYLE = `
html,body{height:100%}
body{font:13px/1.4 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fff;display:flex;flex-direction:column}
header{background:#f6f8fa;border-bottom:1px solid #d0d7de;padding:8px 12px}
header h1{font-size:15px;margin:0 0 6px}
header label{margin-right:10px}
main{display:flex;align-items:stretch;flex:1;min-height:0}
#matrix-wrap{flex:1;overflow:auto;min-height:0}
table.matrix{border-collapse:collapse;table-layout:fixed}
.matrix th,.matrix td{border:1px solid #d0d7de;padding:0 6px;height:21px;line-height:21px;white-space:nowrap;text-align:left;overflow:hidden;text-overflow:ellipsis}
.matrix thead th{position:sticky;top:0;background:#eaeef2;z-index:1}
.matrix tr.group th{background:#f0f3f6;font-weight:600}
.matrix tr.pad td{border:0;padding:0;line-height:0}
.matrix td{cursor:pointer}
td.dispatched,.sw.dispatched{background:#d8f3f0}
td.dispatched.h-Healthy,.sw.dispatched.h-Healthy{background:#dafbe1}
td.dispatched.h-Unknown,.sw.dispatched.h-Unknown{background:#eaeef2}
td.suspended,.sw.suspended{background:#fff8c5}
td.held,.sw.held{background:#ddf4ff}
td.absent,.sw.absent{background:#f6f8fa;color:#57606a;font-style:italic}
td.h-Unhealthy,.sw.h-Unhealthy{background:#ffcecb}
td.changed,.sw.changed{outline:3px solid #bf3989;outline-offset:-3px}
.mk{font-style:normal}
.mk-Healthy,.mk-readyTrue{color:#1a7f37}
.mk-Unhealthy,.mk-notApplied,.mk-readyFalse,.mk-evicting,.mk-failedOver,.mk-warning{color:#cf222e;font-weight:700}
.mk-Unknown,.mk-readyUnknown{color:#9a6700;font-weight:700}
.mk-changed{color:#bf3989;font-weight:700}
.mk-Push,.mk-Pull{font-weight:400;font-size:11px;color:#57606a;border:1px solid #afb8c1;border-radius:3px;padding:0 3px}
#legend summary{cursor:pointer;color:#57606a}
#legend ul{display:flex;flex-wrap:wrap;gap:2px 16px;list-style:none;padding:0;margin:4px 0 0}
.sw{display:inline-block;width:14px;height:12px;border:1px solid #d0d7de;vertical-align:middle}
button.tpl{background:none;border:0;padding:0;font:inherit;line-height:inherit;color:#0969da;cursor:pointer;text-align:left}
#panel{width:45%;overflow:auto;border-left:1px solid #d0d7de;padding:0 12px}
#panel h2{font-size:14px}
#panel h3{font-size:13px;margin:14px 0 4px}
pre{background:#f6f8fa;padding:6px;overflow:auto}
pre.manifest span{display:block}
.ov{background:#ffd8b5}
table.diff td.before{background:#ffebe9}
table.diff td.after{background:#dafbe1}
table.diff,table.fields{border-collapse:collapse}
table.diff td,table.fields td,table.diff th,table.fields th{border:1px solid #d0d7de;padding:2px 6px}
#events{padding:0 12px;max-height:40vh;overflow:auto;border-top:1px solid #d0d7de}
#events li.Warning{color:#cf222e}
`;

export function reportHtml(content: ReportContent, opts: ReportHtmlOptions = {}): string {
  const { model } = content;
  const title = opts.title ?? model.title ?? `karmada-lite ${model.source === 'plan' ? 'plan' : 'fleet'} at ${model.at}`;
  const config = opts.live ? { live: opts.live } : {};
  // After the page's script: the matrix renders while the parser is still reading these (a click waits for them).
  const embedded = opts.live
    ? ''
    : [
        ...(content.details ?? []).map((d, i) => `<script type="application/octet-stream" id="${DETAIL_ID_PREFIX}${i}">${packed(d)}</script>`),
        `<script type="application/octet-stream" id="${EVENTS_ID}">${packed(content.events ?? [])}</script>`,
      ].join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'${opts.live ? "; connect-src 'self'" : ''}">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1 id="title">${escapeHtml(title)}</h1>
<label>namespace <select id="f-namespace"></select></label>
<label>policy <select id="f-policy"></select></label>
<label>cluster <select id="f-cluster"></select></label>
<label>state <select id="f-state"><option value="">all states</option><option value="dispatched">dispatched</option><option value="suspended">suspended</option><option value="held">held by rollout</option><option value="absent">not placed</option><option value="changed">changed</option></select></label>
<label>health <select id="f-health"><option value="">all health</option><option value="not-healthy">not healthy</option><option value="Unhealthy">Unhealthy</option><option value="Unknown">Unknown</option><option value="Healthy">Healthy</option></select></label>
<span id="count" role="status"></span>
<details id="legend" open><summary>legend</summary><ul id="legend-list"></ul></details>
</header>
<main>
<div id="matrix-wrap"><table class="matrix" id="matrix" aria-label="templates by cluster"><thead id="matrix-head"></thead><tbody id="matrix-body"></tbody></table></div>
<aside id="panel" hidden aria-live="polite"></aside>
</main>
<section id="events" hidden><details id="events-details"><summary>Events timeline (<span id="events-count"></span>)</summary><ol id="events-list"></ol></details></section>
<script type="application/json" id="fleet-model">${scriptJson(model)}</script>
<script type="application/json" id="fleet-config">${scriptJson(config)}</script>
<script>${REPORT_CLIENT.replace(/<\/script/gi, '<\\/script')}</script>
${embedded}
</body>
</html>
`;
}
