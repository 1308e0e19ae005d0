// The kwok fleet itself (scripts/k8s/env.sh, KARMADA_LITE_FLEET=kwok): members that behave like clusters, with
// no karmada-lite involved. Every status asserted here is written by kube-controller-manager, kube-scheduler or
// kwok, never by the test; faults are labels kwok's stages act on (test/integration/fleet.ts).
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { RestClient } from '../../src/kube/rest.js';
import { waitFor } from './env.js';
import { conditionOf, FaultLabel, itWithFleet, nodesOf, podsOf, setDeploymentFault, setNodeNotReady, waitDeploymentAvailable, withFleet } from './fleet.js';
import { get, ignoreConflict, rest } from './harness.js';

const NS = `fleet-e2e-${Date.now().toString(36)}`;
const m1 = rest('member1');
const host = rest('host');
const deployPath = (name: string) => `/apis/apps/v1/namespaces/${NS}/deployments/${name}`;

async function createDeployment(c: RestClient, name: string, replicas: number): Promise<void> {
  await c.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: NS },
      spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25', resources: { requests: { cpu: '100m', memory: '64Mi' } } }] } } },
    },
  });
}

const podReady = (p: any) => conditionOf(p, 'Ready')?.status === 'True';

describe('a fleet that behaves like clusters', () => {
  beforeAll(async () => {
    if (!withFleet()) return;
    for (const c of [m1, host]) await ignoreConflict(c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }));
  });

  afterAll(async () => {
    if (!withFleet()) return;
    for (const c of [m1, host]) await c.request('DELETE', `/api/v1/namespaces/${NS}`).catch(() => undefined);
  });

  itWithFleet("a Deployment on member1 becomes Available by itself: scheduled onto kwok's Nodes, Running and Ready", async () => {
    await createDeployment(m1, 'web', 3);
    const d = await waitDeploymentAvailable(m1, NS, 'web');
    expect(d.status).toMatchObject({ replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    const pods = await podsOf(m1, NS, 'web');
    expect(pods).toHaveLength(3);
    const nodes = nodesOf('member1');
    expect(nodes.length).toBeGreaterThan(0);
    for (const p of pods) {
      expect(p.status.phase).toBe('Running');
      expect(podReady(p)).toBe(true);
      expect(nodes).toContain(p.spec.nodeName);
      expect(p.metadata.ownerReferences?.[0]?.kind).toBe('ReplicaSet');
    }
  });

  itWithFleet('a Pod labelled unready runs and is never Ready, and the Deployment counts one replica unavailable; without the label it is Ready again', async () => {
    await createDeployment(m1, 'probe', 2);
    await waitDeploymentAvailable(m1, NS, 'probe');
    const [first] = await podsOf(m1, NS, 'probe');
    const podPath = `/api/v1/namespaces/${NS}/pods/${first.metadata.name}`;
    await m1.request('PATCH', podPath, { body: { metadata: { labels: { [FaultLabel.unready]: 'true' } } }, contentType: 'application/merge-patch+json' });
    const unready = await waitFor('the Pod Running and not Ready', async () => {
      const p = await get(m1, podPath);
      return p?.status?.phase === 'Running' && conditionOf(p, 'Ready')?.status === 'False' ? p : undefined;
    });
    expect(conditionOf(unready, 'Ready')).toMatchObject({ reason: 'ContainersNotReady' });
    expect(unready.status.containerStatuses[0]).toMatchObject({ ready: false, started: true, state: { running: {} } });
    const d = await waitFor('the Deployment with one replica unavailable', async () => {
      const x = await get(m1, deployPath('probe'));
      return x?.status?.availableReplicas === 1 && x.status.unavailableReplicas === 1 ? x : undefined;
    });
    expect(d.status).toMatchObject({ replicas: 2, readyReplicas: 1 });

    await m1.request('PATCH', podPath, { body: { metadata: { labels: { [FaultLabel.unready]: null } } }, contentType: 'application/merge-patch+json' });
    await waitDeploymentAvailable(m1, NS, 'probe');
    expect(podReady(await get(m1, podPath))).toBe(true);
  });

  itWithFleet('a crashing container is restarted again and again (CrashLoopBackOff) and its Deployment has nothing available', async () => {
    await createDeployment(m1, 'crash', 1);
    const [pod] = await setDeploymentFault(m1, NS, 'crash', 'crash');
    const p = await waitFor('two restarts of the crashing container', async () => {
      const x = await get(m1, `/api/v1/namespaces/${NS}/pods/${pod}`);
      return (x?.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 2 ? x : undefined;
    });
    expect(p.status.containerStatuses[0]).toMatchObject({ ready: false, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, reason: 'Error' } } });
    const d = await waitFor('the Deployment with nothing available', async () => {
      const x = await get(m1, deployPath('crash'));
      return x?.status?.replicas === 1 && (x.status.availableReplicas ?? 0) === 0 ? x : undefined;
    });
    expect(conditionOf(d, 'Available')?.status).toBe('False');
  });

  itWithFleet('a Node labelled not-ready reports Ready=False and the node lifecycle controller taints it; without the label it is Ready and untainted again', async () => {
    const [node] = nodesOf('member1');
    expect(node).toBeDefined();
    const nodePath = `/api/v1/nodes/${node}`;
    try {
      await setNodeNotReady(m1, node!, true);
      const n = await waitFor(`${node} NotReady and tainted`, async () => {
        const x = await get(m1, nodePath);
        const tainted = ((x?.spec?.taints ?? []) as any[]).some((t) => t.key === 'node.kubernetes.io/not-ready');
        return conditionOf(x, 'Ready')?.status === 'False' && tainted ? x : undefined;
      });
      expect(conditionOf(n, 'Ready')).toMatchObject({ reason: 'KubeletNotReady' });
    } finally {
      await setNodeNotReady(m1, node!, false);
    }
    await waitFor(`${node} Ready and untainted again`, async () => {
      const x = await get(m1, nodePath);
      const tainted = ((x?.spec?.taints ?? []) as any[]).some((t) => t.key.startsWith('node.kubernetes.io/'));
      return conditionOf(x, 'Ready')?.status === 'True' && !tainted ? true : undefined;
    });
  });

  itWithFleet("a Running Pod's logs are kwok's answer for its Node, on loopback: one line saying no container runs", async () => {
    await createDeployment(m1, 'logs', 1);
    await waitDeploymentAvailable(m1, NS, 'logs');
    const [pod] = await podsOf(m1, NS, 'logs');
    const text = await m1.request<string>('GET', `/api/v1/namespaces/${NS}/pods/${pod.metadata.name}/log`, { query: { container: 'c' } });
    expect(text).toContain('no container runs on the kwok fleet: kwok plays the kubelet of the Nodes of member1');
  });

  itWithFleet('a Job on member1 completes', async () => {
    await m1.request('POST', `/apis/batch/v1/namespaces/${NS}/jobs`, {
      body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'once', namespace: NS }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.36' }] } } } },
    });
    const job = await waitFor('the Job Complete', async () => {
      const j = await get(m1, `/apis/batch/v1/namespaces/${NS}/jobs/once`);
      return conditionOf(j, 'Complete')?.status === 'True' ? j : undefined;
    });
    expect(job.status).toMatchObject({ succeeded: 1 });
  });

  itWithFleet('on the host and on a member, the garbage collector deletes dependents and a deleted namespace finishes terminating', async () => {
    for (const c of [host, m1]) {
      const ns = `${NS}-gc`;
      await c.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } });
      const owner = await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'owner' } } });
      await c.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { metadata: { name: 'dependent', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }] } },
      });
      await c.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/owner`);
      await waitFor('the dependent collected', async () => ((await get(c, `/api/v1/namespaces/${ns}/configmaps/dependent`)) === undefined ? true : undefined));
      await c.request('DELETE', `/api/v1/namespaces/${ns}`);
      await waitFor(`namespace ${ns} gone`, async () => ((await get(c, `/api/v1/namespaces/${ns}`)) === undefined ? true : undefined));
    }
  });

  itWithFleet('the host runs no workload controllers: a Deployment there gets no ReplicaSet and no status', async () => {
    await createDeployment(host, 'template', 1);
    // The same Deployment made at the same moment on member1 is the clock: by the time it is Available there, a
    // deployment controller on the host would have given the template a ReplicaSet long before.
    await createDeployment(m1, 'clock', 1);
    await waitDeploymentAvailable(m1, NS, 'clock');
    const rs = await host.request('GET', `/apis/apps/v1/namespaces/${NS}/replicasets`);
    expect(rs.items).toEqual([]);
    expect((await get(host, deployPath('template'))).status ?? {}).toEqual({});
  });
});
