/** What logs and exec share: the pod argument and the container a command means when -c is not given. */
import { InputError } from '../../io/documents.js';
import type { FleetClient } from './client.js';

/** `web-0` or `pod/web-0` (`pods/`, `po/` too), as kubectl takes a pod. */
export function podName(arg: string): string {
  const m = /^(?:pods?|po)\/(.+)$/.exec(arg);
  if (m) return m[1]!;
  if (arg.includes('/')) throw new InputError(`only pods are supported here, as POD or pod/POD; got ${JSON.stringify(arg)}`);
  return arg;
}

export const podPath = (namespace: string, pod: string, sub?: string) => `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}${sub ? `/${sub}` : ''}`;

const DEFAULT_CONTAINER = 'kubectl.kubernetes.io/default-container';

/**
 * kubectl's container default: the pod's `kubectl.kubernetes.io/default-container` annotation, else its first
 * container, with a notice on stderr when the pod has others. The pod missing is the server's error.
 */
export async function defaultContainer(client: FleetClient, namespace: string, pod: string, notice: (s: string) => void): Promise<string | undefined> {
  const p = await client.get<{ metadata?: { annotations?: Record<string, string> }; spec?: { containers?: Array<{ name: string }> } }>(podPath(namespace, pod));
  const names = (p.spec?.containers ?? []).map((c) => c.name);
  const annotated = p.metadata?.annotations?.[DEFAULT_CONTAINER];
  if (annotated && names.includes(annotated)) return annotated;
  if (names.length > 1) notice(`Defaulted container "${names[0]}" out of: ${names.join(', ')}\n`);
  return names[0];
}
