// End to end, as Karmada's own e2e runs its components: the controller binary started with
// --feature-gates=AllAlpha=true,AllBeta=true (every gate Karmada knows accepted, the ones karmada-lite
// does not follow named in a warning), and a member's APIs discovered again on every status sync: a CRD
// installed on member1 after the controller connected shows up in Cluster.status.apiEnablements, and a
// custom resource whose policy waited on "API not enabled" then reaches member1.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cluster, waitFor } from './env.js';
import { binary, diagnose, freePort, get, ignoreConflict, prepareHost, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const ID = Date.now().toString(36);
const NS = `discovery-e2e-${ID}`;
const GROUP = `disc-${ID}.example.com`;
const CLUSTERS = '/apis/cluster.karmada.io/v1alpha1/clusters';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const CRD_NAME = `gadgets.${GROUP}`;
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: CRD_NAME },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
const gadgets = (ns: string) => `/apis/${GROUP}/v1/namespaces/${ns}/gadgets`;

async function installCrd(c: ReturnType<typeof rest>): Promise<void> {
  await ignoreConflict(c.request('POST', CRDS, { body: crd }));
  await waitFor(`CRD ${CRD_NAME} established`, async () => ((await get(c, `${CRDS}/${CRD_NAME}`))?.status?.conditions?.some((x: any) => x.type === 'Established' && x.status === 'True') ? true : undefined));
}

/** A Pull cluster of its own over member2's apiserver (member2's Push Cluster has no cluster ID, so the agent's is free). */
const PULL = `member2-disc-${ID}`;

const lists = (c: any, gv: string) => ((c?.status?.apiEnablements ?? []) as Array<{ groupVersion: string; resources: Array<{ name: string; kind: string }> }>).find((e) => e.groupVersion === gv);

describe('karmada-lite controller: Karmada feature gates, and member APIs discovered again', () => {
  const host = rest('host');
  const member1 = rest('member1');
  const member2 = rest('member2');
  let ctrl: Proc | undefined;
  let agent: Proc | undefined;

  beforeAll(async () => {
    await prepareHost(host, NS);
    await ignoreConflict(member1.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } }));
    ctrl = await startController(['--feature-gates', 'AllAlpha=true,AllBeta=true,Failover=true']);
  }, scaled(180_000));

  afterAll(async () => {
    await host.request('DELETE', `${gadgets(NS)}/g1`).catch(() => undefined);
    await host.request('DELETE', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/gadgets`).catch(() => undefined);
    await waitFor('the member copy removed', async () => ((await get(member1, `${gadgets(NS)}/g1`).catch(() => undefined)) ? undefined : true)).catch(() => undefined);
    // The Pull cluster goes while its agent and the controller still run (the agent takes its Works' member copies,
    // the controller's finalizer then lets the Cluster go): a Cluster left behind would show in the next suites'
    // fleet reads. Whatever still holds it after that is let go by hand.
    await host.request('DELETE', `${CLUSTERS}/${PULL}`).catch(() => undefined);
    const gone = async () => ((await get(host, `${CLUSTERS}/${PULL}`).catch(() => undefined)) ? undefined : true);
    await waitFor('the Pull cluster gone', gone, 90_000).catch(() => undefined);
    await stopController(agent);
    if (!(await gone())) {
      await host.request('PATCH', `${CLUSTERS}/${PULL}`, { body: { metadata: { finalizers: null } }, contentType: 'application/merge-patch+json' }).catch(() => undefined);
      await waitFor('the Pull cluster gone', gone).catch(() => undefined);
    }
    const code = await stopController(ctrl);
    for (const c of [host, member1, member2]) await c.request('DELETE', `${CRDS}/${CRD_NAME}`).catch(() => undefined);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
  });

  it('starts with AllAlpha and AllBeta and warns about the gates karmada-lite does not follow', () => {
    const warning = ctrl!.logs.find((l) => l.includes('feature gates not supported by karmada-lite, ignored:'));
    expect(warning, ctrl!.logs.join('\n')).toBeDefined();
    expect(warning).toContain('MultiplePodTemplatesScheduling=true');
    expect(warning).toContain('CustomizedClusterResourceModeling=true');
    expect(warning).not.toContain('PropagationPolicyPreemption');
    expect(warning).not.toContain('MultiClusterService');
  });

  it('a CRD installed on member1 later appears in its apiEnablements, and a custom resource waiting on it propagates', async () => {
    // member1 connected and discovered without the CRD.
    await waitFor('member1 ready with its APIs listed', async () => {
      const c = await get(host, `${CLUSTERS}/member1`);
      return c?.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') && lists(c, 'apps/v1') ? c : undefined;
    }, 60_000);
    expect(lists(await get(host, `${CLUSTERS}/member1`), `${GROUP}/v1`)).toBeUndefined();

    // The template and its policy first: the scheduler finds no cluster that serves the kind.
    await installCrd(host);
    host.resetDiscovery();
    await ignoreConflict(host.request('POST', gadgets(NS), { body: { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'g1', namespace: NS }, spec: { size: 3 } } }));
    await ignoreConflict(
      host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
        body: {
          apiVersion: 'policy.karmada.io/v1alpha1',
          kind: 'PropagationPolicy',
          metadata: { name: 'gadgets', namespace: NS },
          spec: { resourceSelectors: [{ apiVersion: `${GROUP}/v1`, kind: 'Gadget', name: 'g1' }], placement: { clusterAffinity: { clusterNames: ['member1'] } } },
        },
      }),
    );
    const rb = `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/g1-gadget`;
    const scheduled = await waitFor('the binding not scheduled: the API is not enabled on member1', async () => {
      const cond = (await get(host, rb))?.status?.conditions?.find((x: any) => x.type === 'Scheduled');
      return cond?.status === 'False' ? cond : undefined;
    }, 60_000);
    expect(scheduled.reason).toBe('NoClusterFit');
    expect(scheduled.message).toContain('cluster(s) did not have the API resource');

    // Now member1 gains the CRD: the next status sync lists it, and the waiting policy places the resource.
    await installCrd(member1);
    const c = await waitFor('member1 apiEnablements list the new CRD', async () => lists(await get(host, `${CLUSTERS}/member1`), `${GROUP}/v1`), 60_000).catch(async (e: unknown) => {
      throw new Error(`${(e as Error).message}\n${await diagnose(ctrl)}\n${ctrl!.logs.slice(-30).join('\n')}`);
    });
    expect(c.resources).toEqual([{ name: 'gadgets', kind: 'Gadget' }]);
    expect(lists(await get(host, `${CLUSTERS}/member2`), `${GROUP}/v1`)).toBeUndefined();
    const copy = await waitFor('the Gadget on member1', async () => get(member1, `${gadgets(NS)}/g1`), 60_000);
    expect(copy.spec).toEqual({ size: 3 });

    // Asked every probe, but cheaply: a member whose APIs did not change answers 304 to the last ETag.
    const notModified = await waitFor('304 answers from member1 discovery', async () => {
      const text = await (await fetch(`http://127.0.0.1:${ctrl!.port}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('rest_client_requests_total{') && l.includes('code="304"') && l.includes(`host="${new URL(cluster('member1').server).host}"`));
      return line && Number(line.split(' ').pop()) >= 2 ? line : undefined;
    });
    expect(notModified).toContain('method="GET"');
  }, scaled(300_000));

  it('the agent (Pull mode) discovers its member again too: a CRD installed on member2 later appears on its Cluster', async () => {
    const port = await freePort();
    const child = spawn(
      binary,
      ['agent', '--karmada-kubeconfig', cluster('host').kubeconfig, '--cluster-name', PULL, '--kubeconfig', cluster('member2').kubeconfig, '--metrics-port', String(port), '--bind-address', '127.0.0.1', '--leader-elect=false', '--cluster-status-update-frequency', '1s'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const logs: string[] = [];
    child.stderr!.on('data', (d: Buffer) => logs.push(...d.toString('utf8').split('\n').filter(Boolean)));
    agent = { child, port, logs };
    await waitFor(`${PULL} ready with its APIs listed`, async () => {
      if (child.exitCode !== null) throw new Error(`the agent exited with ${child.exitCode}:\n${logs.join('\n')}`);
      const c = await get(host, `${CLUSTERS}/${PULL}`);
      return c?.status?.conditions?.some((x: any) => x.type === 'Ready' && x.status === 'True') && lists(c, 'apps/v1') ? c : undefined;
    }, 90_000);
    expect(lists(await get(host, `${CLUSTERS}/${PULL}`), `${GROUP}/v1`)).toBeUndefined();

    await installCrd(member2);
    const c = await waitFor(`${PULL} apiEnablements list the new CRD`, async () => lists(await get(host, `${CLUSTERS}/${PULL}`), `${GROUP}/v1`), 60_000).catch((e: unknown) => {
      throw new Error(`${(e as Error).message}\n${logs.slice(-30).join('\n')}`);
    });
    expect(c.resources).toEqual([{ name: 'gadgets', kind: 'Gadget' }]);
  }, scaled(300_000));
});
