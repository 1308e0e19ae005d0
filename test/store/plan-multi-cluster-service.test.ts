// plan with a MultiClusterService (src/core/multi-cluster-service.ts in the embedded control plane): the Service it
// claims lands on providers and consumers, behind the MultiClusterService feature gate as in the controller.
import { describe, expect, it } from 'vitest';
import { parseDocuments } from '../../src/io/documents.js';
import { plan } from '../../src/store/plan.js';

const at = new Date('2024-01-01T00:00:00Z');
const fleet = ['member1', 'member2', 'member3'].map((n) => `apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: ${n}}\nspec: {syncMode: Push}\n`).join('---\n');
const app = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: "nginx:1.25"}]}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {selector: {app: web}, ports: [{port: 80}]}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: default}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement: {clusterAffinity: {clusterNames: [member1]}}
---
apiVersion: networking.karmada.io/v1alpha1
kind: MultiClusterService
metadata: {name: web, namespace: default}
spec: {types: [CrossCluster], providerClusters: [{name: member1}], consumerClusters: [{name: member2}]}
`;

const run = (multiClusterService: boolean) => {
  const out = plan([...parseDocuments(fleet, 'fleet.yaml'), ...parseDocuments(app, 'app.yaml')], { at, core: { multiClusterService } });
  if (!out.ok) throw new Error(out.problems.join('\n'));
  return out.result;
};
const servicesOn = (r: ReturnType<typeof run>) => Object.fromEntries(Object.entries(r.members).map(([m, objs]) => [m, objs.filter((o) => o.kind === 'Service').map((o) => o.metadata.name)]));

describe('plan: MultiClusterService', () => {
  it('the Service goes to the provider and the consumer, the provider gets the suspended marker; no failures', () => {
    const r = run(true);
    expect(r.failures).toEqual([]);
    expect(servicesOn(r)).toEqual({ member1: ['web'], member2: ['web'], member3: [] });
    expect(r.works.filter((w) => w.dispatch === 'suspended').map((w) => [w.cluster, w.manifest?.kind])).toEqual([['member1', 'MultiClusterService']]);
    const mcs = r.events.filter((e) => e.involvedObject.kind === 'MultiClusterService').map((e) => e.reason);
    expect(mcs).toContain('SyncServiceSucceed');
  });

  it('with the gate off (Karmada’s default) the MultiClusterService does nothing: the Service stays home', () => {
    const r = run(false);
    expect(servicesOn(r)).toEqual({ member1: [], member2: [], member3: [] });
  });
});
