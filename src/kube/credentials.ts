import { createHash } from 'node:crypto';
import { KubeConfig } from '@kubernetes/client-node';
import { KarmadaClusterNamespace } from '../api/constants.js';

/** The Secret a Cluster's credentials are in; its namespace defaults to karmada-cluster. */
export function secretRefOf(cluster: any): { namespace: string; name: string } | undefined {
  const ref = cluster?.spec?.secretRef as { namespace?: string; name?: string } | undefined;
  return ref?.name ? { namespace: ref.namespace || KarmadaClusterNamespace, name: ref.name } : undefined;
}

/** What of a Secret a member connection is made from: a change of its labels alone does not reconnect. */
export function secretSignature(secret: any): string {
  const data = (secret?.data ?? {}) as Record<string, string>;
  const keys = Object.keys(data).sort();
  return createHash('sha256').update(JSON.stringify(keys.map((k) => [k, data[k]]))).digest('hex').slice(0, 16);
}

/** The Cluster fields a member connection is made from: when they change, the client is made again. */
export function clusterSignature(cluster: any): string {
  const s = cluster?.spec ?? {};
  return JSON.stringify([s.apiEndpoint, s.secretRef?.namespace, s.secretRef?.name, s.insecureSkipTLSVerification === true, s.proxyURL]);
}

/**
 * A push-mode member's credentials: the Cluster's `spec.apiEndpoint` plus the Secret its `secretRef`
 * names, holding `token` and `caBundle` (Karmada's layout) or a whole `kubeconfig`.
 */
export function memberKubeConfig(cluster: any, secret: any): KubeConfig {
  const name = cluster.metadata?.name as string;
  const data = (secret?.data ?? {}) as Record<string, string>;
  const decode = (v: string) => Buffer.from(v, 'base64').toString('utf8');
  const kc = new KubeConfig();
  if (data.kubeconfig) {
    kc.loadFromString(decode(data.kubeconfig));
    return kc;
  }
  const server = cluster.spec?.apiEndpoint as string | undefined;
  if (!server) throw new Error(`cluster ${name} has no spec.apiEndpoint`);
  if (!data.token) throw new Error(`the secret of cluster ${name} has neither token nor kubeconfig`);
  const skipTLSVerify = cluster.spec?.insecureSkipTLSVerification === true;
  kc.loadFromOptions({
    clusters: [{ name, server, caData: data.caBundle, skipTLSVerify }],
    users: [{ name, token: decode(data.token) }],
    contexts: [{ name, cluster: name, user: name }],
    currentContext: name,
  });
  return kc;
}
