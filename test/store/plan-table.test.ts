import { describe, expect, it } from 'vitest';
import { parseDocuments } from '../../src/io/documents.js';
import { formatPlanTable, imagesOf } from '../../src/store/plan-table.js';
import { configMap, deployment, fleet, planned, propagationPolicy } from './plan-fixtures.js';

const clusters = fleet([
  { name: 'member1', labels: '{tier: gold}', spec: 'region: eu' },
  { name: 'member2', labels: '{tier: gold}', spec: 'region: us' },
  { name: 'member3', labels: '{tier: gold}', spec: 'region: ap, taints: [{key: maintenance, value: "true", effect: NoSchedule}]' },
  { name: 'member4', labels: '{tier: bronze}', spec: 'region: sa' },
]);
const input = [
  deployment('web'),
  configMap('lonely'),
  propagationPolicy('web', '[{apiVersion: apps/v1, kind: Deployment, name: web}]', '{clusterAffinity: {labelSelector: {matchLabels: {tier: gold}}}, spreadConstraints: [{spreadByField: cluster, maxGroups: 1, minGroups: 1}]}'),
  `apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: mirror, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  overrideRules:
    - targetCluster: {clusterNames: [member1]}
      overriders: {imageOverrider: [{component: Registry, operator: replace, value: mirror.example}]}
`,
].join('---\n');

const table = (text: string): string[] => formatPlanTable(planned([...clusters, ...parseDocuments(text, 'app.yaml')])).trimEnd().split('\n');

describe('plan table', () => {
  it('has an IMAGE column (after overrides) and an OVERRIDES column naming the overrides that applied', () => {
    const lines = table(input);
    expect(lines[0]).toMatch(/^TEMPLATE\s+POLICY\s+CLUSTER\s+REPLICAS\s+DISPATCHING\s+APPLIED\s+HEALTH\s+IMAGE\s+OVERRIDES$/);
    expect(lines[1]).toMatch(/^Deployment\/default\/web\s+default\/web\s+member1\s+2\s+dispatched\s+yes\s+Healthy\s+mirror\.example\/web:1\s+default\/mirror$/);
  });

  it('says why each other cluster is absent: the taint, the affinity, the spread constraints, in the scheduler\'s words', () => {
    const absent = table(input).filter((l) => /^Deployment\/default\/web\s+default\/web\s+member[234]/.test(l));
    expect(absent.map((l) => l.replace(/^Deployment\/default\/web\s+default\/web\s+/, ''))).toEqual([
      'member3  filtered out: TaintToleration: cluster(s) had untolerated taint {maintenance=true:NoSchedule}',
      'member4  filtered out: ClusterAffinity: cluster(s) did not match the placement cluster affinity constraint',
      'member2  not selected: feasible, but the spread constraints selected other clusters',
    ]);
  });

  it('has a row for a template no policy matches', () => {
    expect(table(input).at(-1)).toMatch(/^ConfigMap\/default\/lonely\s+-\s+-\s+no policy matches this template$/);
  });

  it('an unscheduled binding says NoClusterFit with the scheduler\'s message, and each cluster why', () => {
    const lines = table(input.replace('{labelSelector: {matchLabels: {tier: gold}}}', '{labelSelector: {matchLabels: {tier: platinum}}}'));
    expect(lines[1]).toMatch(/^Deployment\/default\/web\s+default\/web\s+-\s+unscheduled: NoClusterFit: 0\/4 clusters are available: /);
    // The first filter that fails is the one reported: affinity runs before the taint check.
    expect(lines.slice(2).map((l) => /(member\d)\s+filtered out: (\w+)/.exec(l)?.slice(1))).toEqual([
      ['member1', 'ClusterAffinity'],
      ['member2', 'ClusterAffinity'],
      ['member3', 'ClusterAffinity'],
      ['member4', 'ClusterAffinity'],
      undefined,
    ]);
  });

  it('finds images wherever a pod template keeps them', () => {
    const cronJob = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c' }, spec: { jobTemplate: { spec: { template: { spec: { initContainers: [{ name: 'i', image: 'init:1' }], containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'a:1' }] } } } } } };
    expect(imagesOf(cronJob)).toEqual(['init:1', 'a:1']);
    expect(imagesOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })).toEqual([]);
  });
});

describe('plan table: Works of no binding', () => {
  it('a Namespace the namespace controller propagates is listed per cluster, not as unmatched', () => {
    const lines = table('apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n');
    expect(lines.slice(1)).toHaveLength(4);
    expect(lines.slice(1).every((l) => /^Namespace\/team-a\s+\(namespace controller\)\s+member\d\s+-\s+dispatched\s+yes\s+-\s+-\s+-$/.test(l))).toBe(true);
  });
});
