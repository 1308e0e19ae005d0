// Status of the kinds Karmada's aggregated API servers keep (Cluster: karmada-aggregated-apiserver,
// ResourceRegistry: karmada-search): their status strategies validate nothing, so what Karmada's clients
// write is accepted here too. A metav1.Condition written by a Go client with no reason or time set is
// `{"type":...,"status":...,"lastTransitionTime":null,"reason":"","message":""}`.
import { describe, expect, it } from 'vitest';
import { findKind, validateSchema } from '../../src/validation/schema.js';

const check = (apiVersion: string, kind: string, obj: unknown) => validateSchema(findKind(apiVersion, kind)!, obj).map((e) => `${e.path}: ${e.message}`);

const cluster = (status: unknown, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'cluster.karmada.io/v1alpha1',
  kind: 'Cluster',
  metadata: { name: 'member1' },
  spec: { syncMode: 'Push', apiEndpoint: 'https://127.0.0.1:6443', ...spec },
  status,
});

describe('Cluster and ResourceRegistry status: no stricter than Karmada', () => {
  it('accepts a Cluster condition with an empty reason and message', () => {
    expect(check('cluster.karmada.io/v1alpha1', 'Cluster', cluster({ conditions: [{ type: 'NetworkReady', status: 'False', reason: '', message: '', lastTransitionTime: '2026-12-07T04:00:00Z' }] }))).toEqual([]);
  });

  it('accepts a Cluster condition as a Go client marshals an unset metav1.Condition time (null)', () => {
    expect(check('cluster.karmada.io/v1alpha1', 'Cluster', cluster({ conditions: [{ type: 'NetworkReady', status: 'False', lastTransitionTime: null, reason: '', message: '' }] }))).toEqual([]);
  });

  it('accepts a Cluster condition with only type and status', () => {
    expect(check('cluster.karmada.io/v1alpha1', 'Cluster', cluster({ conditions: [{ type: 'NetworkReady', status: 'False' }] }))).toEqual([]);
  });

  it('accepts condition reasons, types, statuses and generations the metav1 rules would refuse', () => {
    const conditions = [{ type: 'has spaces', status: 'Maybe', reason: 'not a CamelCase reason!', message: 'x'.repeat(40_000), observedGeneration: -1, lastTransitionTime: '2026-12-07T04:00:00Z' }];
    expect(check('cluster.karmada.io/v1alpha1', 'Cluster', cluster({ conditions }))).toEqual([]);
  });

  it('accepts a spec.id longer than 128 characters (Karmada validates no length)', () => {
    expect(check('cluster.karmada.io/v1alpha1', 'Cluster', cluster(undefined, { id: 'i'.repeat(200) }))).toEqual([]);
  });

  it('still refuses what decoding Karmada Go types refuses: a condition time that is not RFC 3339', () => {
    expect(check('cluster.karmada.io/v1alpha1', 'Cluster', cluster({ conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: 'yesterday' }] }))).not.toEqual([]);
  });

  it('accepts a ResourceRegistry condition with an empty reason', () => {
    const rr = {
      apiVersion: 'search.karmada.io/v1alpha1',
      kind: 'ResourceRegistry',
      metadata: { name: 'r' },
      spec: { targetCluster: { clusterNames: ['member1'] }, resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment' }] },
      status: { conditions: [{ type: 'Cached', status: 'False', lastTransitionTime: null, reason: '', message: '' }] },
    };
    expect(check('search.karmada.io/v1alpha1', 'ResourceRegistry', rr)).toEqual([]);
  });
});
