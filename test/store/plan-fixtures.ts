/** Inputs the plan tests share: a pinned time, fleets, Deployments, and a plan that must succeed. */
import { findCondition, type KObject } from '../../src/core/object.js';
import { parseDocuments, type SourceDocument } from '../../src/io/documents.js';
import type { EmbeddedStore } from '../../src/store/embedded.js';
import { plan, type PlanOptions, type PlanResult } from '../../src/store/plan.js';

/** Plans run at the current time unless told: the tests pin it, for output that is the same on every run. */
export const AT = new Date('2024-01-01T00:00:00Z');

/** Push-mode Clusters; an entry may carry labels and extra spec fields as flow YAML. */
export function fleet(clusters: Array<string | { name: string; labels?: string; spec?: string }>): SourceDocument[] {
  const docs = clusters.map((c) => {
    const { name, labels, spec } = typeof c === 'string' ? { name: c } : c;
    return `apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: ${name}${labels ? `, labels: ${labels}` : ''}}\nspec: {syncMode: Push${spec ? `, ${spec}` : ''}}\n`;
  });
  return parseDocuments(docs.join('---\n'), 'fleet.yaml');
}

export function deployment(name: string, o: { replicas?: number; image?: string; uid?: string } = {}): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, namespace: default${o.uid ? `, uid: ${o.uid}` : ''}}
spec:
  replicas: ${o.replicas ?? 2}
  selector: {matchLabels: {app: ${name}}}
  template: {metadata: {labels: {app: ${name}}}, spec: {containers: [{name: main, image: "${o.image ?? `registry.example/${name}:1`}"}]}}
`;
}

/** The plan of these documents at AT; input problems fail the test with their text. */
export function planned(docs: SourceDocument[], opts: PlanOptions = {}): PlanResult {
  const out = plan(docs, { at: AT, ...opts });
  if (!out.ok) throw new Error(out.problems.join('\n'));
  return out.result;
}

export const configMap = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: default}\ndata: {level: info}\n`;

/** A PropagationPolicy in default: its resource selectors and placement as flow YAML. */
export function propagationPolicy(name: string, selectors: string, placement: string): string {
  return `apiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: ${name}, namespace: default}\nspec: {resourceSelectors: ${selectors}, placement: ${placement}}\n`;
}

/** default/nginx as an object (2 replicas, app=nginx) running `image`: the core tests' template. */
export function nginxDeployment(image: string): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx' } },
    spec: { replicas: 2, selector: { matchLabels: { app: 'nginx' } }, template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image }] } } },
  };
}

/** A PropagationPolicy default/nginx sending nginxDeployment's template to `clusters` (Duplicated). */
export function nginxPolicy(clusters: string[]): KObject {
  return {
    apiVersion: 'policy.karmada.io/v1alpha1',
    kind: 'PropagationPolicy',
    metadata: { name: 'nginx', namespace: 'default' },
    spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }], placement: { clusterAffinity: { clusterNames: clusters } } },
  };
}

/** Every state a host Work was stored in, in order, from now on: what a watcher of the Works sees. */
export function workStates(store: EmbeddedStore): KObject[] {
  const seen: KObject[] = [];
  store.watch((ev) => {
    if (ev.cluster === undefined && ev.object.kind === 'Work' && ev.type !== 'DELETED') seen.push(structuredClone(ev.object));
  });
  return seen;
}

/** The status of a Work's Applied condition, undefined before the first report. */
export const applied = (w: KObject): string | undefined => findCondition(w.status?.conditions, 'Applied')?.status;
