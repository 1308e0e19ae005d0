/**
 * `--kubeconfig` and `--context`, as kubectl takes them: the file (default $KUBECONFIG, ~/.kube/config,
 * or the in-cluster service account) and the context in it to use instead of its current-context.
 * client-node is imported only here, when a cluster is named: it costs every other command startup time.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { logV } from './verbosity.js';

/** Loads a kubeconfig; throws a message that names the flag when the file or the context is not there. */
export async function loadKubeConfig(file: string | undefined, context: string | undefined): Promise<KubeConfig> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  if (file) kc.loadFromFile(file);
  else kc.loadFromDefault();
  if (context !== undefined) {
    if (!kc.getContextObject(context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new Error(`--context: no context "${context}" in ${file ?? 'the default kubeconfig'}${known.length ? `; it has ${known.join(', ')}` : ''}`);
    }
    kc.setCurrentContext(context);
  }
  logV(2, `kubeconfig ${file ?? '(default)'}, context ${kc.getCurrentContext() || '(none)'}, server ${kc.getCurrentCluster()?.server ?? '(none)'}`);
  return kc;
}
