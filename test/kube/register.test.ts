// karmada-lite register's objects, pure: the agent's least-privilege RBAC on the host, the member side, the
// agent's kubeconfig; and deploy/agent/, which is these objects for the example cluster.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { AgentAggregationLabel, AgentWorkVerbs, agentKubeconfig, agentManifestFiles, agentUserName, clusterObject, hostRbacObjects, leaseObjects, memberKubeconfigSecret, memberObjects, type RegisterPlan } from '../../src/kube/register.js';

const repo = path.resolve(__dirname, '..', '..');
const plan: RegisterPlan = { clusterName: 'edge1', clusterNamespace: 'karmada-cluster', agentNamespace: 'karmada-system', image: 'karmada-lite:0.1.0', replicas: 1 };
const rulesOf = (kind: string, name: string) => (hostRbacObjects(plan).find((o) => o.kind === kind && o.metadata.name === name) as any)?.rules as any[];

describe('register: the agent identity on the host', () => {
  it('names only its own Cluster, Leases and execution namespace, and creates and deletes nothing', () => {
    const cluster = rulesOf('ClusterRole', 'system:karmada:edge1:agent');
    for (const r of cluster.filter((r) => r.apiGroups.includes('cluster.karmada.io'))) expect(r.resourceNames).toEqual(['edge1']);
    const all = hostRbacObjects(plan).flatMap((o: any) => (o.rules ?? []).map((r: any) => ({ role: o.metadata.name, namespace: o.metadata.namespace, ...r })));
    // Events are the one create: on Works, the Cluster and the templates Works came from.
    expect(all.filter((r) => r.verbs.includes('create')).map((r) => r.resources)).toEqual([['events'], ['events']]);
    expect(all.some((r) => r.verbs.includes('delete') || r.verbs.includes('*') || r.resources.includes('*') || r.resources.includes('secrets'))).toBe(false);
    expect(rulesOf('Role', 'system:karmada:edge1:agent-lease')).toEqual([{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['edge1'], verbs: ['get', 'update', 'patch'] }]);
    expect(rulesOf('Role', 'system:karmada:edge1:agent-leader-election')[0].resourceNames).toEqual(['karmada-agent-edge1']);
    const work = hostRbacObjects(plan).find((o) => o.metadata.name === 'system:karmada:edge1:agent-work' && o.kind === 'Role')!;
    expect(work.metadata.namespace).toBe('karmada-es-edge1');
  });

  it('binds every role to the ServiceAccount karmada-cluster/karmada-agent-edge1', () => {
    const bindings = hostRbacObjects(plan).filter((o) => o.kind.endsWith('Binding')) as any[];
    expect(bindings).toHaveLength(4);
    for (const b of bindings) {
      expect(b.subjects).toEqual([{ kind: 'ServiceAccount', name: 'karmada-agent-edge1', namespace: 'karmada-cluster' }]);
      expect(b.roleRef.name).toBe(b.metadata.name);
    }
    expect(agentUserName(plan)).toBe('system:serviceaccount:karmada-cluster:karmada-agent-edge1');
  });

  it('the Cluster is what the agent registers (Pull, the member id), and the Leases are owned by it once its uid is known', () => {
    const c = clusterObject({ ...plan, apiEndpoint: 'https://10.0.0.1:6443', zones: ['a'] }, 'uid-1', { insecureSkipTLSVerification: false });
    expect(c.spec).toEqual({ syncMode: 'Pull', id: 'uid-1', apiEndpoint: 'https://10.0.0.1:6443', zones: ['a'] });
    expect(c.metadata.finalizers).toEqual(['karmada.io/cluster-controller']);
    const [heartbeat, leader] = leaseObjects(plan, 'c-uid') as any[];
    expect(heartbeat.metadata).toEqual({ name: 'edge1', namespace: 'karmada-cluster', ownerReferences: [{ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', name: 'edge1', uid: 'c-uid' }] });
    expect(heartbeat.spec).toEqual({ holderIdentity: 'edge1', leaseDurationSeconds: 40 });
    expect(leader.metadata.name).toBe('karmada-agent-edge1');
    expect(leader.metadata.namespace).toBe('karmada-system');
    expect((leaseObjects(plan, undefined)[0] as any).metadata.ownerReferences).toBeUndefined();
  });
});

describe('register: the member side and the kubeconfig', () => {
  it('gives the agent no wildcard in the member: an aggregated ClusterRole, filled by labelled ClusterRoles', () => {
    const objects = memberObjects(plan) as any[];
    const roles = objects.filter((o) => o.kind === 'ClusterRole');
    const agent = roles.find((r) => r.metadata.name === 'karmada-agent');
    expect(agent.aggregationRule).toEqual({ clusterRoleSelectors: [{ matchLabels: { [AgentAggregationLabel]: 'true' } }] });
    // Left to the aggregation: a second register's server-side apply must not empty it.
    expect(agent.rules).toBeUndefined();
    const binding = objects.find((o) => o.kind === 'ClusterRoleBinding');
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'karmada-agent' });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'karmada-agent-sa', namespace: 'karmada-system' }]);
    const parts = roles.filter((r) => r.metadata.labels?.[AgentAggregationLabel] === 'true');
    expect(parts.map((r) => r.metadata.name)).toEqual(['karmada-agent:base', 'karmada-agent:workloads']);
    const rules = parts.flatMap((r) => r.rules);
    const everything = rules.flatMap((r) => [...(r.apiGroups ?? []), ...(r.resources ?? []), ...r.verbs, ...(r.nonResourceURLs ?? [])]);
    expect(everything.filter((x) => x === '*')).toEqual([]);
    expect(rules.some((r) => r.resources?.includes('secrets') || r.verbs.includes('escalate') || r.verbs.includes('bind') || r.verbs.includes('impersonate'))).toBe(false);
    // The default kinds are the controller's template role's, with what the agent does to them.
    expect(rules).toContainEqual({ apiGroups: ['apps'], resources: ['deployments', 'statefulsets', 'daemonsets'], verbs: [...AgentWorkVerbs] });
    expect(rules).toContainEqual({ apiGroups: [''], resources: ['services', 'configmaps'], verbs: [...AgentWorkVerbs] });
    expect(rules.find((r) => r.nonResourceURLs)).toEqual({ nonResourceURLs: ['/readyz', '/healthz', '/livez', '/version', '/api', '/api/*', '/apis', '/apis/*'], verbs: ['get'] });
  });

  it('runs `karmada-lite agent` with the Secret karmada-kubeconfig and the in-cluster account', () => {
    const d = memberObjects({ ...plan, apiEndpoint: 'https://edge:6443' }).find((o) => o.kind === 'Deployment') as any;
    const c = d.spec.template.spec.containers[0];
    expect(c.command).toEqual(['/karmada-lite', 'agent']);
    expect(c.args).toContain('--karmada-kubeconfig=/etc/kubeconfig/karmada-kubeconfig');
    expect(c.args).toContain('--cluster-name=edge1');
    expect(c.args).toContain('--cluster-api-endpoint=https://edge:6443');
    expect(c.args.some((a: string) => a.startsWith('--cluster-region'))).toBe(false);
    expect(d.spec.template.spec.serviceAccountName).toBe('karmada-agent-sa');
    expect(d.spec.template.spec.volumes).toEqual([{ name: 'kubeconfig', secret: { secretName: 'karmada-kubeconfig' } }]);
  });

  it('the kubeconfig names the host as karmada-apiserver with its CA and the token; the Secret carries it', () => {
    const text = agentKubeconfig(plan, { server: 'https://127.0.0.1:6443', caData: 'Q0E=' }, 'tok');
    const kc = parseAllDocuments(text)[0]!.toJS();
    expect(kc.clusters).toEqual([{ name: 'karmada-apiserver', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': 'Q0E=' } }]);
    expect(kc.users[0].user).toEqual({ token: 'tok' });
    expect(kc['current-context']).toBe(kc.contexts[0].name);
    const s = memberKubeconfigSecret(plan, text) as any;
    expect(Buffer.from(s.data['karmada-kubeconfig'], 'base64').toString('utf8')).toBe(text);
  });
});

describe('deploy/agent', () => {
  it('is register\'s objects for the example cluster edge1 (KARMADA_LITE_WRITE_DEPLOY=1 writes them)', () => {
    const files = agentManifestFiles();
    for (const [name, text] of Object.entries(files)) {
      const file = path.join(repo, 'deploy', 'agent', name);
      if (process.env.KARMADA_LITE_WRITE_DEPLOY === '1') writeFileSync(file, text);
      expect(existsSync(file), `${file} is missing; run KARMADA_LITE_WRITE_DEPLOY=1 npx vitest run test/kube/register.test.ts`).toBe(true);
      expect(readFileSync(file, 'utf8'), `deploy/agent/${name} is not what src/kube/register.ts builds; run KARMADA_LITE_WRITE_DEPLOY=1 npx vitest run test/kube/register.test.ts`).toBe(text);
    }
  });
});
