/**
 * Every mark and colour the page draws, with what the legend says of each. Cells, column heads and the
 * events timeline draw marks from here only, and the legend is made from here, so nothing on the page goes
 * unexplained. Health is never told by colour alone: each value has a mark of its own shape.
 */
import type { CellHealth, FleetClusterHead } from '../model.js';

export interface Mark {
  glyph: string;
  /** What the legend says. */
  text: string;
}

export const MARKS = {
  applied: { glyph: '✓', text: 'Applied: the member accepted the manifest' },
  notApplied: { glyph: '✗', text: 'not Applied: the member refused the manifest (the Work says why)' },
  Healthy: { glyph: '●', text: 'Healthy, as the member reports it' },
  Unhealthy: { glyph: '▲', text: 'Unhealthy, as the member reports it' },
  Unknown: { glyph: '?', text: 'health Unknown: not reported yet, or not a health the interpreter knows' },
  evicting: { glyph: '⇢', text: 'graceful eviction: the replicas are moving off this cluster' },
  failedOver: { glyph: '↻', text: "failover: the binding's failover history names this cluster" },
  changed: { glyph: '±', text: 'changed from the old plan (--diff-against); before and after in the panel' },
  Push: { glyph: 'Push', text: 'the control plane writes to the member (syncMode Push)' },
  Pull: { glyph: 'Pull', text: "the member's agent pulls its Works (syncMode Pull)" },
  readyTrue: { glyph: 'Ready', text: 'the Cluster is Ready' },
  readyFalse: { glyph: 'NotReady', text: 'the Cluster is not Ready: its Works wait, failover may move them' },
  readyUnknown: { glyph: 'Ready?', text: 'readiness Unknown: no Cluster status yet, or the agent stopped reporting' },
  warning: { glyph: '⚠', text: 'a Warning event' },
} as const satisfies Record<string, Mark>;

export type MarkKey = keyof typeof MARKS;

export const healthMark = (h: CellHealth): MarkKey => h;
export const readyMark = (r: FleetClusterHead['ready']): MarkKey => (r === 'True' ? 'readyTrue' : r === 'False' ? 'readyFalse' : 'readyUnknown');

/** The cell colours (the cell's CSS classes) and what each says: Unhealthy's red wins over every state's colour. */
export const SWATCHES: ReadonlyArray<{ cls: string; text: string }> = [
  { cls: 'dispatched h-Healthy', text: 'dispatched, Healthy' },
  { cls: 'dispatched h-Unhealthy', text: 'Unhealthy (whatever the dispatch state)' },
  { cls: 'dispatched h-Unknown', text: 'dispatched, health Unknown' },
  { cls: 'dispatched', text: 'dispatched, no health to report (a Namespace)' },
  { cls: 'suspended', text: 'dispatching suspended' },
  { cls: 'held', text: 'held by a rollout stage' },
  { cls: 'absent', text: 'not placed: the scheduler says why' },
  { cls: 'changed', text: 'changed from the old plan' },
];
