// RBAC manifests applied as a cluster with kube-controller-manager would hold them: the test apiservers run no
// clusterrole-aggregation controller, so an aggregated ClusterRole's rules are computed here, as it would.
import { writeFileSync } from 'node:fs';
import { RestClient } from '../../src/kube/rest.js';
import { kubeConfig, type ClusterName } from './env.js';
import { get } from './k8s-env.js';

export type Rule = { apiGroups?: string[]; resources?: string[]; verbs: string[]; resourceNames?: string[]; nonResourceURLs?: string[] };
export type RbacDoc = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  rules?: Rule[];
  aggregationRule?: { clusterRoleSelectors: Array<{ matchLabels?: Record<string, string> }> };
};

/**
 * What the clusterrole-aggregation controller does: an aggregated ClusterRole's rules become those of every
 * ClusterRole its selectors match, among `roles` and `others` (ClusterRoles the cluster already holds).
 */
export function aggregated<T extends RbacDoc>(roles: T[], others: readonly RbacDoc[] = []): T[] {
  const pool = [...roles, ...others];
  return roles.map((r) => {
    if (r.kind !== 'ClusterRole' || !r.aggregationRule) return r;
    const matches = (o: RbacDoc) => o.metadata.name !== r.metadata.name && o.kind === 'ClusterRole' && r.aggregationRule!.clusterRoleSelectors.some((s) => Object.entries(s.matchLabels ?? {}).every(([k, v]) => o.metadata.labels?.[k] === v));
    return { ...r, rules: pool.filter(matches).flatMap((o) => o.rules ?? []) };
  });
}

/** Creates or replaces each object. */
export async function putAll(c: RestClient, objects: readonly RbacDoc[]): Promise<void> {
  for (const o of objects) {
    const p = await c.pathFor(o.apiVersion, o.kind, o.metadata.namespace);
    const cur = await get(c, `${p}/${o.metadata.name}`);
    if (cur) await c.request('PUT', `${p}/${o.metadata.name}`, { body: { ...o, metadata: { ...o.metadata, resourceVersion: cur.metadata.resourceVersion } } });
    else await c.request('POST', p, { body: o });
  }
}

/** Writes to `file` a kubeconfig for cluster `name` with an hour's token (TokenRequest) of the ServiceAccount `sa`; returns `file`. */
export async function serviceAccountKubeconfig(name: ClusterName, sa: { namespace: string; name: string }, file: string): Promise<string> {
  const admin = kubeConfig(name);
  const tr = await new RestClient(admin).request('POST', `/api/v1/namespaces/${sa.namespace}/serviceaccounts/${sa.name}/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } } });
  const c = admin.getCurrentCluster()!;
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name, cluster: { server: c.server, 'certificate-authority-data': c.caData } }],
      users: [{ name: 'sa', user: { token: tr.status.token } }],
      contexts: [{ name, context: { cluster: name, user: 'sa' } }],
      'current-context': name,
    }),
  );
  return file;
}
