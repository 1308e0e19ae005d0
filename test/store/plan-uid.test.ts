import { describe, expect, it } from 'vitest';
import { parseDocuments } from '../../src/io/documents.js';
import { deployment, fleet, planned, propagationPolicy } from './plan-fixtures.js';

// One replica over two equal static weights: a tie, which Karmada breaks by the template's uid
// (odd FNV-1a hash: the larger cluster name wins; even: the smaller).
const weights = '{replicaSchedulingType: Divided, replicaDivisionPreference: Weighted, weightPreference: {staticWeightList: [{targetCluster: {clusterNames: [member1]}, weight: 1}, {targetCluster: {clusterNames: [member2]}, weight: 1}]}}';
const app = (uid?: string) =>
  [deployment('api', { replicas: 1, uid }), propagationPolicy('api', '[{apiVersion: apps/v1, kind: Deployment, name: api}]', `{clusterAffinity: {clusterNames: [member1, member2]}, replicaScheduling: ${weights}}`)].join('---\n');
const ODD = '6f1c2a3e-0000-4000-8000-000000000001';
const EVEN = '6f1c2a3e-0000-4000-8000-000000000002';

const run = (uid?: string) => planned([...fleet(['member1', 'member2']), ...parseDocuments(app(uid), 'app.yaml')]);

describe('plan keeps a uid given in its input', () => {
  it('the template keeps its live uid, so the static-weight tie goes where the cluster will put it', () => {
    const odd = run(ODD);
    expect(odd.templates[0]!.metadata.uid).toBe(ODD);
    expect(odd.bindings[0]!.spec.resource).toMatchObject({ name: 'api', uid: ODD });
    expect(odd.bindings[0]!.spec.clusters).toEqual([{ name: 'member2', replicas: 1 }]);
    expect(odd.works[0]!.manifest!.metadata.annotations!['resourcetemplate.karmada.io/uid']).toBe(ODD);

    const even = run(EVEN);
    expect(even.templates[0]!.metadata.uid).toBe(EVEN);
    expect(even.bindings[0]!.spec.clusters).toEqual([{ name: 'member1', replicas: 1 }]);
  });

  it('objects without a uid keep the deterministic generated ones, whichever inputs carried a uid', () => {
    const plain = run();
    expect(plain.templates[0]!.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(run().templates[0]!.metadata.uid).toBe(plain.templates[0]!.metadata.uid);
    // The binding has no uid in the input: it gets the same generated one whether or not the template had one.
    expect(run(ODD).bindings[0]!.metadata.uid).toBe(plain.bindings[0]!.metadata.uid);
  });
});
