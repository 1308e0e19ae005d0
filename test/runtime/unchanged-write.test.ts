import { describe, expect, it } from 'vitest';
import { unchangedByWrite } from '../../src/runtime/unchanged-write.js';
import type { KObject } from '../../src/core/object.js';

const cached: KObject = {
  apiVersion: 'work.karmada.io/v1alpha2',
  kind: 'ResourceBinding',
  metadata: { name: 'web-deployment', namespace: 'default', uid: 'u1', resourceVersion: '7', generation: 2, creationTimestamp: '2024-01-01T00:00:00Z', labels: { a: 'b' }, finalizers: ['karmada.io/binding-controller'] },
  spec: { clusters: [{ name: 'member1', replicas: 2 }] },
  status: { schedulerObservedGeneration: 2, conditions: [{ type: 'Scheduled', status: 'True' }] },
};
const copy = (): KObject => structuredClone(cached);

describe('unchangedByWrite', () => {
  it('an update that stores the cached object again changes nothing, with or without the server-owned fields', () => {
    expect(unchangedByWrite('update', copy(), cached, true)).toBe(true);
    const bare = copy();
    delete bare.metadata.uid;
    delete bare.metadata.creationTimestamp;
    delete bare.metadata.generation;
    delete bare.metadata.resourceVersion;
    expect(unchangedByWrite('update', bare, cached, true)).toBe(true);
  });

  it('an update that moves spec, labels or finalizers is a write', () => {
    const spec = copy();
    spec.spec.clusters[0].replicas = 3;
    expect(unchangedByWrite('update', spec, cached, true)).toBe(false);
    const labels = copy();
    labels.metadata.labels = { a: 'c' };
    expect(unchangedByWrite('update', labels, cached, true)).toBe(false);
    const fin = copy();
    fin.metadata.finalizers = [];
    expect(unchangedByWrite('update', fin, cached, true)).toBe(false);
  });

  it('the status counts for an update only where the kind has no status subresource', () => {
    const st = copy();
    st.status.schedulerObservedGeneration = 3;
    expect(unchangedByWrite('update', st, cached, true)).toBe(true);
    expect(unchangedByWrite('update', st, cached, false)).toBe(false);
  });

  it('a status update with an equal status is dropped, whatever else differs; a new status is a write', () => {
    const other = copy();
    other.spec.clusters = [];
    expect(unchangedByWrite('updateStatus', other, cached, true)).toBe(true);
    const st = copy();
    st.status.conditions[0].status = 'False';
    expect(unchangedByWrite('updateStatus', st, cached, true)).toBe(false);
    // Without the subresource a status update is a whole update.
    expect(unchangedByWrite('updateStatus', other, cached, false)).toBe(false);
  });

  it('a write from another resourceVersion, or of an object not cached, is left to the server', () => {
    const stale = copy();
    stale.metadata.resourceVersion = '6';
    expect(unchangedByWrite('update', stale, cached, true)).toBe(false);
    expect(unchangedByWrite('updateStatus', stale, cached, true)).toBe(false);
    expect(unchangedByWrite('update', copy(), undefined, true)).toBe(false);
  });
});
