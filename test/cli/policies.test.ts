// What promote and apply --all-clusters make, pure: the template cleaned from a member's object, and
// the policies with karmadactl's names and fields.
import { describe, expect, it } from 'vitest';
import { generatePolicyName } from '../../src/api/constants.js';
import { applyPolicy, goGvkString, policyNameFor, promotedTemplate, promotePolicy, type KubeObject } from '../../src/cli/fleet/policies.js';
import { parseBoolFlag } from '../../src/cli/commands/promote.js';
import { lintDocuments } from '../../src/validation/lint.js';

// A Deployment as a member's apiserver and controllers return it.
const memberDeployment: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'shop',
    uid: '7d4a7f0e-1111-4c1e-9d1b-000000000001',
    resourceVersion: '4711',
    generation: 3,
    creationTimestamp: '2026-12-01T10:00:00Z',
    managedFields: [{ manager: 'kubectl-client-side-apply', operation: 'Update' }],
    labels: { app: 'web' },
    annotations: { 'deployment.kubernetes.io/revision': '2', team: 'shop' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'Thing', name: 'x', uid: 'u' }],
    finalizers: ['example.com/keep'],
  },
  spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } },
  status: { replicas: 2, readyReplicas: 2, observedGeneration: 3 },
};

describe('the policy name karmadactl generates', () => {
  it('is Karmada\'s GeneratePolicyName: name-hash of namespace and the Go GVK string, ":" made "."', () => {
    // pkg/util/names/names_test.go
    expect(generatePolicyName('ns-foo', 'foo', 'rand')).toBe('foo-b4978784');
    expect(generatePolicyName('ns-foo', 'system:foo', 'rand')).toBe('system.foo-b4978784');
    expect(goGvkString('apps/v1', 'Deployment')).toBe('apps/v1, Kind=Deployment');
    expect(goGvkString('v1', 'ConfigMap')).toBe('/v1, Kind=ConfigMap');
    expect(policyNameFor({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' })).toBe(generatePolicyName('shop', 'web', 'apps/v1, Kind=Deployment'));
    expect(policyNameFor({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop' }, 'mine')).toBe('mine');
  });
});

describe('promote', () => {
  it('cleans the member\'s object into a template that overwrites the member\'s copy', () => {
    const t = promotedTemplate(memberDeployment);
    expect(t.metadata).toEqual({
      name: 'web',
      namespace: 'shop',
      labels: { app: 'web' },
      annotations: { team: 'shop', 'work.karmada.io/conflict-resolution': 'overwrite' },
    });
    expect(t.status).toBeUndefined();
    expect(t.spec).toEqual(memberDeployment.spec);
    // the member's object is left as it was
    expect(memberDeployment.metadata.uid).toBeDefined();
  });

  it('keeps a conflict-resolution the object already names', () => {
    const own = { ...memberDeployment, metadata: { ...memberDeployment.metadata, annotations: { 'work.karmada.io/conflict-resolution': 'abort' } } };
    expect(promotedTemplate(own).metadata.annotations).toEqual({ 'work.karmada.io/conflict-resolution': 'abort' });
  });

  it('makes a PropagationPolicy to the one cluster, Overwrite and preserveResourcesOnDeletion, as karmadactl', () => {
    const pp = promotePolicy({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop', cluster: 'member1', policyName: 'web-x', deps: false });
    expect(pp).toEqual({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: 'web-x', namespace: 'shop' },
      spec: {
        resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }],
        placement: { clusterAffinity: { clusterNames: ['member1'] } },
        conflictResolution: 'Overwrite',
        preserveResourcesOnDeletion: true,
      },
    });
    const cpp = promotePolicy({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'view', cluster: 'member2', policyName: 'view-y', deps: true });
    expect(cpp.kind).toBe('ClusterPropagationPolicy');
    expect(cpp.metadata).toEqual({ name: 'view-y' });
    expect((cpp.spec as any).propagateDeps).toBe(true);
  });

  it('--auto-create-policy takes Go\'s booleans', () => {
    expect(parseBoolFlag('--auto-create-policy', true)).toBe(true);
    expect(parseBoolFlag('--auto-create-policy', 'false')).toBe(false);
    expect(() => parseBoolFlag('--auto-create-policy', 'maybe')).toThrow('--auto-create-policy must be true or false, got "maybe"');
  });
});

describe('apply --all-clusters / -C', () => {
  it('one policy per object, selecting exactly it, to every cluster or to those named', () => {
    const all = applyPolicy({ apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'shop' });
    expect(all).toEqual({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name: generatePolicyName('shop', 'cfg', '/v1, Kind=ConfigMap'), namespace: 'shop' },
      spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'shop' }], placement: { clusterAffinity: {} } },
    });
    const some = applyPolicy({ apiVersion: 'v1', kind: 'Namespace', name: 'shop', clusters: ['member1', 'member2'] });
    expect(some.kind).toBe('ClusterPropagationPolicy');
    expect(some.spec).toEqual({ resourceSelectors: [{ apiVersion: 'v1', kind: 'Namespace', name: 'shop' }], placement: { clusterAffinity: { clusterNames: ['member1', 'member2'] } } });
  });

  it('what both make passes the webhook\'s rules', () => {
    const objects = [
      promotePolicy({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', namespace: 'shop', cluster: 'member1', policyName: 'web-x', deps: true }),
      applyPolicy({ apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', namespace: 'shop' }),
      applyPolicy({ apiVersion: 'v1', kind: 'Namespace', name: 'shop', clusters: ['member1'] }),
    ];
    const results = lintDocuments(objects.map((object, index) => ({ file: 'made', index, object })));
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    expect(results.map((r) => r.status)).toEqual(['valid', 'valid', 'valid']);
  });
});
