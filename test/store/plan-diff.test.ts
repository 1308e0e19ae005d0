import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { parseDocuments, readDocuments, type SourceDocument } from '../../src/io/documents.js';
import { formatPlanJson } from '../../src/store/plan.js';
import { diffPlans, formatPlanDiff, planToCompare, savedPlan } from '../../src/store/plan-diff.js';
import { AT as at, configMap, deployment, fleet as fleetOf, planned, propagationPolicy } from './plan-fixtures.js';

const fleet = fleetOf(['member1', 'member2', 'member3']);
const app = (o: { replicas?: number; image?: string; clusters?: string } = {}) =>
  [
    deployment('web', { replicas: o.replicas, image: o.image ?? 'web:1' }),
    configMap('settings'),
    propagationPolicy('web', '[{apiVersion: apps/v1, kind: Deployment, name: web}, {apiVersion: v1, kind: ConfigMap, name: settings}]', `{clusterAffinity: {clusterNames: [${o.clusters ?? 'member1, member2'}]}}`),
  ].join('---\n');

const planOf = (docs: SourceDocument[]) => planned([...docs, ...fleet]);

describe('plan --diff-against', () => {
  it('gives, per template and cluster, replicas and manifest fields before and after, and clusters gained or lost', () => {
    const before = planOf(parseDocuments(app(), 'old.yaml'));
    const after = planOf(parseDocuments(app({ replicas: 3, image: 'web:2', clusters: 'member1, member3' }), 'new.yaml'));
    const changes = diffPlans(before, after);
    expect(changes.map((c) => [c.template, c.cluster, c.change])).toEqual([
      ['ConfigMap/default/settings', 'member2', 'removed'],
      ['ConfigMap/default/settings', 'member3', 'added'],
      ['Deployment/default/web', 'member1', 'changed'],
      ['Deployment/default/web', 'member2', 'removed'],
      ['Deployment/default/web', 'member3', 'added'],
    ]);
    expect(changes[2]).toMatchObject({
      replicas: { before: 2, after: 3 },
      fields: [
        { path: 'spec.replicas', before: 2, after: 3 },
        { path: 'spec.template.spec.containers[0].image', before: 'web:1', after: 'web:2' },
      ],
    });
    expect(formatPlanDiff(changes)).toBe(
      [
        '- ConfigMap/default/settings on member2: no longer placed (dispatched)',
        '+ ConfigMap/default/settings on member3 (dispatched)',
        '~ Deployment/default/web on member1',
        '    replicas: 2 -> 3',
        '    spec.replicas: 2 -> 3',
        '    spec.template.spec.containers[0].image: "web:1" -> "web:2"',
        '- Deployment/default/web on member2: no longer placed (replicas 2, dispatched)',
        '+ Deployment/default/web on member3 (replicas 3, dispatched)',
        '5 change(s) in 2 template(s)',
        '',
      ].join('\n'),
    );
  });

  it('ids the server or Karmada draw afresh are no change: the same input in another order diffs empty', () => {
    const docs = parseDocuments(app(), 'app.yaml');
    const reordered = planOf([...docs].reverse());
    expect(diffPlans(planOf(docs), reordered)).toEqual([]);
    expect(formatPlanDiff([])).toBe('no changes\n');
  });

  it('a fleet given twice (in the inputs and again as --clusters, with status) plans as given once', () => {
    const examples = join(import.meta.dirname, '../../examples');
    const once = planned(readDocuments([examples]));
    const twice = planned(readDocuments([examples, join(examples, 'fleet')]));
    expect(once.works.length).toBeGreaterThan(0);
    expect(diffPlans(once, twice)).toEqual([]);
  });

  it('OLD may be a saved plan -o json, or inputs planned the same way', () => {
    const after = planOf(parseDocuments(app({ image: 'web:2' }), 'new.yaml'));
    const saved = parseDocuments(formatPlanJson(planOf(parseDocuments(app(), 'old.yaml'))), 'before.json');
    expect(savedPlan(saved)).toBeDefined();
    expect(savedPlan(parseDocuments(app(), 'old.yaml'))).toBeUndefined();
    const fromSaved = planToCompare(saved, fleet, { at });
    const fromInputs = planToCompare(parseDocuments(app(), 'old.yaml'), fleet, { at });
    if (!fromSaved.ok || !fromInputs.ok) throw new Error('OLD did not plan');
    expect(diffPlans(fromSaved.result, after)).toEqual(diffPlans(fromInputs.result, after));
    expect(diffPlans(fromSaved.result, after).map((c) => [c.cluster, c.fields.map((f) => f.path)])).toEqual([
      ['member1', ['spec.template.spec.containers[0].image']],
      ['member2', ['spec.template.spec.containers[0].image']],
    ]);
  });
});
