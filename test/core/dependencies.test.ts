// The dependencies distributor (src/core/dependencies.ts) on the embedded control plane: Karmada's events
// (pkg/dependenciesdistributor, reasons and messages verbatim), the attached binding's settings re-derived
// from every binding requiring it, and the watches that wake it (no events on a change that is no sync).
import { describe, expect, it } from 'vitest';
import { goDependencies } from '../../src/core/dependencies.js';
import type { KObject } from '../../src/core/object.js';
import { ControlPlane } from '../../src/store/control-plane.js';

const NS = 'default';
const RBV = 'work.karmada.io/v1alpha2';
const rb = (name: string) => ({ apiVersion: RBV, kind: 'ResourceBinding', namespace: NS, name });

const deployment = (name: string, configMap = 'shared'): KObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: NS },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx', envFrom: [{ configMapRef: { name: configMap } }] }] } },
  },
});

const policy = (name: string, extra: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'policy.karmada.io/v1alpha1',
  kind: 'PropagationPolicy',
  metadata: { name, namespace: NS },
  spec: { propagateDeps: true, resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name }], placement: { clusterAffinity: { clusterNames: ['member1'] } }, ...extra },
});

const configMap = (name: string, data: Record<string, string> = { k: 'v' }): KObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data });

function fleet(): ControlPlane {
  const cp = new ControlPlane({ start: new Date('2024-01-01T00:00:00Z') });
  cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'member1' }, spec: { syncMode: 'Push' } });
  cp.apply(configMap('shared'));
  return cp;
}

/** The distributor's events as `kind/name reason message ×count`. */
function distributorEvents(cp: ControlPlane): string[] {
  return cp
    .events()
    .filter((e) => e.source === 'dependencies-distributor')
    .map((e) => `${e.involvedObject.kind}/${e.involvedObject.name} ${e.type} ${e.reason} ${e.message} x${e.count}`);
}

function settingsOf(cp: ControlPlane, name = 'shared-configmap') {
  const b = cp.get(rb(name))!;
  return { conflictResolution: b.spec.conflictResolution, preserveResourcesOnDeletion: b.spec.preserveResourcesOnDeletion };
}

const DEPS = '[{APIVersion:v1 Kind:ConfigMap Namespace:default Name:shared LabelSelector:nil}]';

describe('dependencies distributor: events', () => {
  it("reports GetDependenciesSucceed on the workload and SyncScheduleResultToDependenciesSucceed on its binding, in Karmada's words", () => {
    const cp = fleet();
    cp.apply(deployment('a'));
    cp.apply(policy('a'));
    cp.settle();
    expect(distributorEvents(cp)).toEqual([
      `Deployment/a Normal GetDependenciesSucceed Get dependencies(${DEPS}) succeed. x1`,
      'ResourceBinding/a-deployment Normal SyncScheduleResultToDependenciesSucceed Sync schedule results to dependencies succeed. x1',
    ]);
    // The attached binding Karmada creates always carries the effective settings (unset counts as Abort / false).
    expect(settingsOf(cp)).toEqual({ conflictResolution: 'Abort', preserveResourcesOnDeletion: false });
  });

  it('syncs again on a dependency change and a binding spec change, and not on a no-op or an unrelated object', () => {
    const cp = fleet();
    cp.apply(deployment('a'));
    cp.apply(policy('a'));
    cp.settle();
    const count = () => cp.events().find((e) => e.reason === 'SyncScheduleResultToDependenciesSucceed')!.count;
    expect(count()).toBe(1);
    cp.apply(configMap('unrelated'));
    cp.apply({ ...configMap('shared'), metadata: { ...configMap('shared').metadata, annotations: {} } });
    cp.settle();
    expect(count()).toBe(1);
    cp.apply(configMap('shared', { k: 'changed' }));
    cp.settle();
    expect(count()).toBe(2);
    cp.apply(policy('a', { conflictResolution: 'Overwrite' }));
    cp.settle();
    expect(count()).toBe(3);
  });

  it('reports GetDependenciesFailed on the workload with the interpreter\'s error, and retries', () => {
    const cp = fleet();
    cp.apply({
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterCustomization',
      metadata: { name: 'broken-deps' },
      spec: { target: { apiVersion: 'apps/v1', kind: 'Deployment' }, customizations: { dependencyInterpretation: { luaScript: 'function GetDependencies(desiredObj)\n  error("no dependencies today")\nend' } } },
    });
    cp.apply(deployment('a'));
    cp.apply(policy('a'));
    cp.settle();
    const failed = cp.events().filter((e) => e.reason === 'GetDependenciesFailed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ type: 'Warning', involvedObject: { kind: 'Deployment', name: 'a' } });
    expect(failed[0]!.message).toContain('no dependencies today');
    expect(cp.events().some((e) => e.reason === 'SyncScheduleResultToDependenciesSucceed')).toBe(false);
  });

  it('reports SyncScheduleResultToDependenciesFailed when a binding of that name belongs to an earlier object (karmada#6034)', () => {
    const cp = fleet();
    // Owned by another live object, so the garbage collector keeps it.
    const earlier = cp.apply(configMap('earlier'));
    cp.apply({
      apiVersion: RBV,
      kind: 'ResourceBinding',
      metadata: { name: 'shared-configmap', namespace: NS, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'earlier', uid: earlier.metadata.uid!, controller: true }] },
      spec: { resource: { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: 'shared' } },
    });
    cp.apply(deployment('a'));
    cp.apply(policy('a'));
    cp.settle();
    const failed = cp.events().filter((e) => e.reason === 'SyncScheduleResultToDependenciesFailed');
    expect(failed.map((e) => [e.type, e.involvedObject.name, e.message])).toEqual([
      [
        'Warning',
        'a-deployment',
        'failed to update resourceBinding(default/shared-configmap) due to different owner reference UID, will try again later after binding is garbage collected, see https://github.com/karmada-io/karmada/issues/6034',
      ],
    ]);
    expect(cp.get(rb('shared-configmap'))!.spec.requiredBy).toBeUndefined();
  });
});

describe('dependencies distributor: a shared dependency takes its settings from every binding requiring it', () => {
  it('Overwrite and preserve win, a mix is a DependencyPolicyConflict, and the settings follow the bindings that remain', () => {
    const cp = fleet();
    cp.apply(deployment('a'));
    cp.apply(deployment('b'));
    cp.apply(policy('a'));
    cp.apply(policy('b'));
    cp.settle();
    expect(settingsOf(cp)).toEqual({ conflictResolution: 'Abort', preserveResourcesOnDeletion: false });

    cp.apply(policy('a', { conflictResolution: 'Overwrite', preserveResourcesOnDeletion: true }));
    cp.settle();
    expect(settingsOf(cp)).toEqual({ conflictResolution: 'Overwrite', preserveResourcesOnDeletion: true });
    expect(cp.events().filter((e) => e.reason === 'DependencyPolicyConflict').map((e) => [e.type, e.involvedObject.name, e.message])).toEqual([
      ['Warning', 'shared-configmap', 'Dependency policy conflict detected: ConflictResolution conflicted (Overwrite vs Abort); PreserveResourcesOnDeletion conflicted (true vs false).'],
    ]);

    cp.apply(policy('b', { conflictResolution: 'Overwrite', preserveResourcesOnDeletion: true }));
    cp.settle();
    expect(settingsOf(cp)).toEqual({ conflictResolution: 'Overwrite', preserveResourcesOnDeletion: true });
    // The Works carry the binding's settings to the members.
    const work = cp.store.list({ apiVersion: 'work.karmada.io/v1alpha1', kind: 'Work' }, { namespace: 'karmada-es-member1' }).find((w) => w.metadata.name?.startsWith('shared-'))!;
    expect(work.spec.preserveResourcesOnDeletion).toBe(true);

    // Only b wants the old settings back; a still wants Overwrite and preserve, so they stay.
    cp.apply(policy('b', { conflictResolution: 'Abort', preserveResourcesOnDeletion: false }));
    cp.settle();
    expect(settingsOf(cp)).toEqual({ conflictResolution: 'Overwrite', preserveResourcesOnDeletion: true });

    // a stops propagating its dependencies: the settings are derived again from b alone.
    cp.apply(policy('a', { propagateDeps: false, conflictResolution: 'Overwrite', preserveResourcesOnDeletion: true }));
    cp.settle();
    expect(cp.get(rb('shared-configmap'))!.spec.requiredBy.map((r: { name: string }) => r.name)).toEqual(['b-deployment']);
    expect(settingsOf(cp)).toEqual({ conflictResolution: 'Abort', preserveResourcesOnDeletion: false });
  });
});

describe("dependencies distributor: Go's %+v of the dependency list", () => {
  it('prints names, namespaces and label selectors as Karmada\'s message does', () => {
    expect(goDependencies([])).toBe('[]');
    expect(
      goDependencies([
        { apiVersion: 'v1', kind: 'Secret', namespace: 'ns', name: 's' },
        { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', namespace: 'ns', labelSelector: { matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['x', 'y'] }] } },
      ]),
    ).toBe(
      '[{APIVersion:v1 Kind:Secret Namespace:ns Name:s LabelSelector:nil} {APIVersion:discovery.k8s.io/v1 Kind:EndpointSlice Namespace:ns Name: LabelSelector:&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}}]',
    );
  });
});
