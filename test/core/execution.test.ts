import { describe, expect, it } from 'vitest';
import { reconcileWork, stripKarmadaMetadata } from '../../src/core/execution.js';
import { setManagedKeys } from '../../src/core/binding.js';
import type { KObject } from '../../src/core/object.js';
import { narrow } from '../typed-reader.js';
import { ReaderNotReadyError, type ObjectReader, type ReconcileContext } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';

describe('preserved member objects', () => {
  it('lose exactly the managed labels and annotations and the PP claim; CRB keys and conflict-resolution stay', () => {
    const m = stripKarmadaMetadata({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'nginx',
        namespace: 'default',
        labels: { app: 'nginx', 'karmada.io/managed': 'true', 'resourcebinding.karmada.io/permanent-id': 'x', 'work.karmada.io/permanent-id': 'y', 'propagationpolicy.karmada.io/permanent-id': 'z', 'clusterresourcebinding.karmada.io/permanent-id': 'c' },
        annotations: {
          'work.karmada.io/name': 'w',
          'work.karmada.io/namespace': 'karmada-es-member1',
          'work.karmada.io/conflict-resolution': 'abort',
          'resourcebinding.karmada.io/name': 'b',
          'resourcebinding.karmada.io/namespace': 'default',
          'resourcetemplate.karmada.io/uid': 'u',
          'resourcetemplate.karmada.io/generation': '1',
          'resourcetemplate.karmada.io/managed-labels': 'a',
          'resourcetemplate.karmada.io/managed-annotations': 'b',
          'propagationpolicy.karmada.io/name': 'p',
          'propagationpolicy.karmada.io/namespace': 'default',
          'clusterpropagationpolicy.karmada.io/name': 'cpp',
          mine: 'kept',
        },
      },
    });
    expect(m.metadata.labels).toEqual({ app: 'nginx', 'clusterresourcebinding.karmada.io/permanent-id': 'c' });
    expect(m.metadata.annotations).toEqual({ 'work.karmada.io/conflict-resolution': 'abort', 'clusterpropagationpolicy.karmada.io/name': 'cpp', mine: 'kept' });
  });
});

describe('managed key records', () => {
  it('list every annotation key including both records, and every label key, sorted', () => {
    const m = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { z: '1', a: '2' }, annotations: { b: 'x' } } };
    setManagedKeys(m);
    expect(m.metadata.annotations).toEqual({
      b: 'x',
      'resourcetemplate.karmada.io/managed-annotations': 'b,resourcetemplate.karmada.io/managed-annotations,resourcetemplate.karmada.io/managed-labels',
      'resourcetemplate.karmada.io/managed-labels': 'a,z',
    });
  });
});

describe('a member cache that cannot answer yet', () => {
  const work: KObject = {
    apiVersion: 'work.karmada.io/v1alpha1',
    kind: 'Work',
    metadata: { name: 'web-687f7fb96f', namespace: 'karmada-es-m1' },
    spec: { workload: { manifests: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'default' }, data: { k: 'v' } }] } },
  };
  function context(memberRead: () => KObject | undefined): ReconcileContext {
    const store = new EmbeddedStore();
    store.create({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm1' }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'ClusterReady', message: '', lastTransitionTime: '2024-01-01T00:00:00Z' }] } });
    store.create(work);
    const reader: ObjectReader = {
      get: (t, ns, name, cluster) => (cluster === undefined ? store.get(t, ns, name) : narrow(t, memberRead())),
      list: (t, o, cluster) => store.list(t, o, cluster),
      types: (cluster) => store.types(cluster),
    };
    return { reader, now: new Date('2024-01-01T00:01:00Z'), interpreter: {} as never, schedule: (() => ({})) as never, options: { policyPreemption: false, gracefulEvictionTimeoutSeconds: 600, skippedPropagatingNamespaces: [] } };
  }
  const key = 'work.karmada.io/v1alpha1|Work|karmada-es-m1|web-687f7fb96f';

  it('is retried: the reconcile throws and records neither Applied=False nor an event', () => {
    const ctx = context(() => {
      throw new ReaderNotReadyError('the cache of ConfigMap in m1 is not synced yet');
    });
    expect(() => reconcileWork(ctx, key)).toThrow(ReaderNotReadyError);
  });

  it('whereas a real apply failure (an unmanaged object in the way) is recorded as Applied=False', () => {
    const ctx = context(() => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'default', resourceVersion: '1' } }));
    const r = reconcileWork(ctx, key);
    expect(r.error).toMatch(/already exists in the cluster m1/);
    const status = r.writes.find((w) => w.op === 'updateStatus')!.object.status;
    expect(status.conditions.find((c: { type: string }) => c.type === 'Applied')).toMatchObject({ status: 'False', reason: 'AppliedFailed' });
  });
});
