// The kwok fleet from the tests' side (scripts/k8s/env.sh with KARMADA_LITE_FLEET=kwok): members whose
// kube-controller-manager, kube-scheduler and kwok Nodes write the status a test used to write by hand, and
// faults made the way a cluster has them: a label on a Pod or a Node that kwok's stages
// (scripts/k8s/kwok-stages.yaml) turn into what a kubelet would report.
import { it } from 'vitest';
import { ApiError, type RestClient } from '../../src/kube/rest.js';
import { k8sEnv, waitFor } from './env.js';
import { fleetOn } from './k8s-env.js';

/** The labels kwok-stages.yaml selects on; one home for the names the stages and the tests share. */
export const FaultLabel = {
  /** Pod: running, never Ready (a readiness probe that keeps failing). */
  unready: 'fleet.karmada-lite.io/unready',
  /** Pod: its containers keep exiting (CrashLoopBackOff, restarts counted). */
  crash: 'fleet.karmada-lite.io/crash',
  /** Node: the kubelet reports Ready=False. */
  nodeNotReady: 'fleet.karmada-lite.io/not-ready',
} as const;

export type PodFault = 'unready' | 'crash';

/** Whether this run has the fleet; the bare one (KARMADA_LITE_FLEET=bare) has apiservers only. */
export const withFleet = (): boolean => fleetOn(k8sEnv());

/**
 * `it` for a test that needs Kubernetes' own controllers on the members: skipped, named as such, on the bare
 * fleet, where nothing would ever write the status it waits for.
 */
export const itWithFleet = (name: string, fn: () => Promise<void>, timeout?: number) => it.skipIf(!withFleet())(`${name} [kwok fleet]`, fn, timeout);

/** The fake Nodes of a member, as env.json lists them. */
export function nodesOf(member: 'member1' | 'member2'): string[] {
  const c = k8sEnv().clusters.find((x) => x.name === member);
  return c?.nodes ?? [];
}

const mergePatch = (c: RestClient, p: string, body: unknown) => c.request('PATCH', p, { body, contentType: 'application/merge-patch+json' });

/** `k=v,k2=v2` of a Deployment's spec.selector.matchLabels: the selector of its Pods. */
async function podSelectorOf(c: RestClient, ns: string, deployment: string): Promise<string> {
  const d = await c.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/${deployment}`);
  const labels = (d.spec?.selector?.matchLabels ?? {}) as Record<string, string>;
  const sel = Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  if (!sel) throw new Error(`Deployment ${ns}/${deployment} has no spec.selector.matchLabels to find its Pods by`);
  return sel;
}

/** The Pods of a member Deployment that are not being deleted. */
export async function podsOf(c: RestClient, ns: string, deployment: string): Promise<any[]> {
  const labelSelector = await podSelectorOf(c, ns, deployment);
  const list = await c.request('GET', `/api/v1/namespaces/${ns}/pods`, { query: { labelSelector } });
  return (list.items as any[]).filter((p) => !p.metadata.deletionTimestamp);
}

/**
 * Makes every current Pod of a member Deployment fail the way `fault` says (undefined heals them): a label
 * kwok's stages act on, so the ReplicaSet and Deployment controllers write the status that follows. Waits
 * for the Deployment's Pods to exist first; returns the Pods' names.
 */
export async function setDeploymentFault(c: RestClient, ns: string, deployment: string, fault: PodFault | undefined): Promise<string[]> {
  const pods = await waitFor(`Pods of ${ns}/${deployment}`, async () => {
    const d = await c.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/${deployment}`);
    const ps = await podsOf(c, ns, deployment);
    return ps.length > 0 && ps.length >= (d.spec?.replicas ?? 1) ? ps : undefined;
  });
  const labels: Record<string, string | null> = { [FaultLabel.unready]: fault === 'unready' ? 'true' : null, [FaultLabel.crash]: fault === 'crash' ? 'true' : null };
  for (const p of pods) await mergePatch(c, `/api/v1/namespaces/${ns}/pods/${p.metadata.name}`, { metadata: { labels } });
  return pods.map((p) => p.metadata.name as string);
}

/** Makes a Node's kubelet (kwok) report Ready=False, or Ready again. */
export async function setNodeNotReady(c: RestClient, node: string, notReady: boolean): Promise<void> {
  await mergePatch(c, `/api/v1/nodes/${node}`, { metadata: { labels: { [FaultLabel.nodeNotReady]: notReady ? 'true' : null } } });
}

export const conditionOf = (o: any, type: string): any => ((o?.status?.conditions ?? []) as any[]).find((x) => x.type === type);

/**
 * The member Deployment as its controller reports it once rolled out: this generation observed, every
 * replica updated and available. Written by kube-controller-manager, never by the test.
 */
export function waitDeploymentAvailable(c: RestClient, ns: string, name: string, referenceTimeoutMs = 60_000): Promise<any> {
  return waitFor(
    `Deployment ${ns}/${name} Available`,
    async () => {
      const d = await c.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/${name}`).catch(() => undefined);
      const n = d?.spec?.replicas ?? 1;
      const s = d?.status ?? {};
      const ok = s.observedGeneration === d?.metadata?.generation && s.updatedReplicas === n && s.availableReplicas === n && conditionOf(d, 'Available')?.status === 'True';
      return ok ? d : undefined;
    },
    referenceTimeoutMs,
  );
}

/** The member Deployment with none of its replicas available (its Pods failing), as its controller reports it. */
export function waitDeploymentUnavailable(c: RestClient, ns: string, name: string, referenceTimeoutMs = 60_000): Promise<any> {
  return waitFor(
    `Deployment ${ns}/${name} with no replica available`,
    async () => {
      const d = await c.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/${name}`).catch(() => undefined);
      const s = d?.status ?? {};
      return d && s.observedGeneration === d.metadata.generation && (s.availableReplicas ?? 0) === 0 && (s.replicas ?? 0) > 0 ? d : undefined;
    },
    referenceTimeoutMs,
  );
}

/**
 * Cordons (or uncordons) every fake Node of a member, as `kubectl cordon` does: Pods already there keep running,
 * new ones stay Pending (Unschedulable), so a copy sent there is not healthy until the test uncordons.
 */
export async function cordonMember(c: RestClient, member: 'member1' | 'member2', cordoned: boolean): Promise<void> {
  for (const n of nodesOf(member)) await mergePatch(c, `/api/v1/nodes/${n}`, { spec: { unschedulable: cordoned ? true : null } });
}

/**
 * A readiness gate (spec.readinessGates) the test owns, as an outside controller (a load balancer, a smoke test)
 * would: kwok runs the Pods and reports their containers ready, and the Pod is Ready only once the test opens
 * the gate on it (openReadinessGate). Lets a test say when a member copy becomes healthy.
 */
export const ReadinessGate = 'fleet.karmada-lite.io/ready';
export const gatedPodSpec = { readinessGates: [{ conditionType: ReadinessGate }] };

/** Opens the readiness gate on the Pods of a member Deployment that have it shut (one pass). */
export async function openGates(c: RestClient, ns: string, deployment: string): Promise<void> {
  for (const p of await podsOf(c, ns, deployment)) {
    if (!((p.spec?.readinessGates ?? []) as any[]).some((g) => g.conditionType === ReadinessGate)) continue;
    if (conditionOf(p, ReadinessGate)?.status === 'True') continue;
    // A strategic merge keeps the kubelet's (kwok's) conditions and adds or replaces the gate's by type.
    await c
      .request('PATCH', `/api/v1/namespaces/${ns}/pods/${p.metadata.name}/status`, {
        body: { status: { conditions: [{ type: ReadinessGate, status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] } },
        contentType: 'application/strategic-merge-patch+json',
      })
      .catch((e) => {
        // gone meanwhile (a rolling update's old Pod): nothing to open
        if (!(e instanceof ApiError && e.code === 404)) throw e;
      });
  }
}

/**
 * Opens the readiness gate on every Pod of a member Deployment, again for Pods made meanwhile (a rolling update's
 * next ones), until its controller reports it Available; resolves with that Deployment.
 */
export function openReadinessGate(c: RestClient, ns: string, deployment: string, referenceTimeoutMs = 60_000): Promise<any> {
  return waitFor(
    `Deployment ${ns}/${deployment} Available with its readiness gates open`,
    async () => {
      await openGates(c, ns, deployment);
      const d = await c.request('GET', `/apis/apps/v1/namespaces/${ns}/deployments/${deployment}`);
      const n = d?.spec?.replicas ?? 1;
      const s = d?.status ?? {};
      return s.observedGeneration === d.metadata.generation && s.updatedReplicas === n && s.availableReplicas === n && s.replicas === n ? d : undefined;
    },
    referenceTimeoutMs,
    500,
  );
}
