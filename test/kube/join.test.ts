// join's objects and its refusals, pure (the writes are tested on the real apiservers by
// test/integration/cli-fleet-verbs.test.ts).
import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../src/api/generated/types.js';
import { joinClusterObject, joinHostNamespaces, joinHostSecrets, joinMemberObjects, joinProblem } from '../../src/kube/join.js';

const plan = { clusterName: 'east', clusterNamespace: 'karmada-cluster' };
const endpoint = { apiEndpoint: 'https://10.0.0.1:6443', caData: 'Q0E=', insecureSkipTLSVerification: false };
const cluster = (name: string, spec: Partial<Cluster['spec']>): Cluster => ({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: spec as Cluster['spec'] });

describe('joinProblem: Karmada\'s check of the name and the member\'s id', () => {
  it('the same name and id again is this cluster: join is idempotent', () => {
    expect(joinProblem([cluster('east', { id: 'u1', syncMode: 'Push' })], 'east', 'u1')).toBeUndefined();
    expect(joinProblem([], 'east', 'u1')).toBeUndefined();
  });

  it('refuses a Pull cluster of that id, another cluster of that name, this member under another name', () => {
    expect(joinProblem([cluster('east', { id: 'u1', syncMode: 'Pull' })], 'east', 'u1')).toContain('karmada-lite unregister east');
    expect(joinProblem([cluster('east', { id: 'u2', syncMode: 'Push' })], 'east', 'u1')).toMatch(/^the cluster name east has been registered \(syncMode Push, cluster ID u2\), .* is u1: join it under another name/);
    expect(joinProblem([cluster('east', { syncMode: 'Push' })], 'east', 'u1')).toContain('no cluster ID');
    expect(joinProblem([cluster('west', { id: 'u1' })], 'east', 'u1')).toContain('has been registered as cluster west');
  });
});

describe("join's objects", () => {
  it('in the member: the namespace first, each identity ServiceAccount before its rights, the token last', () => {
    expect(joinMemberObjects(plan).map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Namespace/karmada-cluster',
      'ServiceAccount/karmada-east',
      'ClusterRole/karmada-controller-manager:karmada-east',
      'ClusterRoleBinding/karmada-controller-manager:karmada-east',
      'Secret/karmada-east',
      'ServiceAccount/karmada-impersonator',
      'ClusterRole/karmada-impersonator',
      'ClusterRoleBinding/karmada-impersonator',
      'Secret/karmada-impersonator',
    ]);
    expect(joinMemberObjects(plan)[4]).toMatchObject({ type: 'kubernetes.io/service-account-token', metadata: { annotations: { 'kubernetes.io/service-account.name': 'karmada-east' } } });
    expect(joinHostNamespaces(plan).map((o) => o.metadata.name)).toEqual(['karmada-cluster', 'karmada-es-east']);
  });

  it('the Secrets carry the tokens and the kubeconfig\'s CA (else the token Secret\'s), owned by the Cluster once it exists', () => {
    const owner = cluster('east', {});
    owner.metadata.uid = 'c-uid';
    const [main, imp] = joinHostSecrets(plan, endpoint, { token: 'dA==', impersonatorToken: 'aQ==', caData: 'b3RoZXI=' }, owner);
    expect(main).toMatchObject({ metadata: { name: 'east', ownerReferences: [{ kind: 'Cluster', name: 'east', uid: 'c-uid', controller: true }] }, data: { token: 'dA==', caBundle: 'Q0E=' } });
    expect(imp).toMatchObject({ metadata: { name: 'east-impersonator' }, data: { token: 'aQ==' } });
    const [noCa] = joinHostSecrets(plan, { ...endpoint, caData: undefined }, { token: 'dA==', impersonatorToken: 'aQ==', caData: 'b3RoZXI=' });
    expect(noCa!.data).toEqual({ token: 'dA==', caBundle: 'b3RoZXI=' });
    expect(noCa!.metadata.ownerReferences).toBeUndefined();
    // a dry run issues no token: the Secrets carry no data
    expect(joinHostSecrets(plan, endpoint, undefined).map((s) => s.data)).toEqual([undefined, undefined]);
  });

  it('the Cluster: Push, the endpoint and id, the Secrets; fields join does not set are kept from the stored one', () => {
    const stored = cluster('east', { taints: [{ key: 'k', effect: 'NoSchedule' }], insecureSkipTLSVerification: true, proxyURL: 'http://old:3128', region: 'eu' });
    const c = joinClusterObject({ ...plan, zones: ['z1'] }, 'u1', endpoint, stored);
    expect(c.metadata).toEqual({ name: 'east', finalizers: ['karmada.io/cluster-controller'] });
    expect(c.spec).toEqual({
      taints: [{ key: 'k', effect: 'NoSchedule' }],
      region: 'eu',
      zones: ['z1'],
      syncMode: 'Push',
      apiEndpoint: 'https://10.0.0.1:6443',
      id: 'u1',
      secretRef: { namespace: 'karmada-cluster', name: 'east' },
      impersonatorSecretRef: { namespace: 'karmada-cluster', name: 'east-impersonator' },
    });
    expect(joinClusterObject(plan, 'u1', { ...endpoint, insecureSkipTLSVerification: true, proxyURL: 'socks5://p:1080' }).spec).toMatchObject({ insecureSkipTLSVerification: true, proxyURL: 'socks5://p:1080' });
  });
});
