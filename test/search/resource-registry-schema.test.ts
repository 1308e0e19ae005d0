// ResourceRegistry (search.karmada.io/v1alpha1): its CRD schema is the whole check (Karmada's webhook has no
// rules for the kind), offline in `validate` as for every other kind.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { errorText } from '../../src/validation/field-errors.js';
import { lintDocuments } from '../../src/validation/lint.js';
import { findKind } from '../../src/validation/schema.js';

const rr = (spec: unknown) => ({ apiVersion: 'search.karmada.io/v1alpha1', kind: 'ResourceRegistry', metadata: { name: 'r' }, spec });

describe('ResourceRegistry schema', () => {
  it('is a known, cluster-scoped kind with a generated CRD', () => {
    expect(findKind('search.karmada.io/v1alpha1', 'ResourceRegistry')).toMatchObject({ plural: 'resourceregistries', namespaced: false });
    const crd = parse(readFileSync('crds/search.karmada.io_resourceregistries.yaml', 'utf8'));
    expect(crd.spec).toMatchObject({ group: 'search.karmada.io', scope: 'Cluster', names: { kind: 'ResourceRegistry', plural: 'resourceregistries' } });
    expect(crd.spec.versions[0].subresources).toEqual({ status: {} });
  });

  it('validate accepts Karmada\'s example and names each field that is wrong', () => {
    const ok = rr({ targetCluster: { clusterNames: ['member1', 'member2'] }, resourceSelectors: [{ apiVersion: 'v1', kind: 'Pod' }, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default' }] });
    expect(lintDocuments([{ file: 'rr.yaml', index: 0, object: ok }])[0]).toMatchObject({ status: 'valid', errors: [] });
    const [bad] = lintDocuments([{ file: 'rr.yaml', index: 0, object: rr({ targetCluster: { clusterNames: 'member1' }, resourceSelectors: [{ apiVersion: 'v1' }], backendStore: { openSearch: { addresses: ['https://localhost:9200'] } } }) }]);
    expect(bad!.status).toBe('invalid');
    expect(bad!.errors.map(errorText).sort()).toEqual([
      'spec.backendStore.openSearch.secretRef: Required value',
      'spec.resourceSelectors[0].kind: Required value',
      'spec.targetCluster.clusterNames: must be a list',
    ]);
    const [missing] = lintDocuments([{ file: 'rr.yaml', index: 0, object: rr({}) }]);
    expect(missing!.errors.map(errorText).sort()).toEqual(['spec.resourceSelectors: Required value', 'spec.targetCluster: Required value']);
  });
});
