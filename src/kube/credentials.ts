import { KubeConfig } from '@kubernetes/client-node';

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
