// End to end (issue 12, "scripts off the event loop"): a hostile ResourceInterpreterCustomization whose
// scripts never return, applied while the real binary runs with --with-webhook. Its kind is kept busy
// (the ConfigMaps it targets are edited every few hundred milliseconds, so the work-status controller
// runs the scripts again and again; on the event loop, one key after another, each for its 1 s budget,
// with no I/O in between); meanwhile /healthz answers every probe, the webhook every AdmissionReview, a
// plain Deployment reaches member1, and the RIC gets ScriptsHealthy=False and an Event.
import { Agent } from 'node:https';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePki } from '../webhook/certs.js';
import { waitFor } from './env.js';
import { hostileRic, sendAdmissionReview } from './k8s-env.js';
import { diagnose, freePort, get, prepareHost, removeDeployments, rest, startController, stopController, type Proc } from './harness.js';
import { scaled } from '../time-scale.js';

const NS = `containment-e2e-${Date.now().toString(36)}`;
const RIC_NAME = `hostile-${NS}`;
const RICS = '/apis/config.karmada.io/v1alpha1/resourceinterpretercustomizations';
const PPS = `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`;
/** kubelet's default probe timeout (timeoutSeconds: 1): a probe answered later than that failed. */
const PROBE_TIMEOUT_MS = 1000;
/** ConfigMaps of the hostile RIC's kind, edited together. */
const SPINNERS = ['spin-0', 'spin-1', 'spin-2', 'spin-3', 'spin-4'];
/** The API server's default webhook timeout is 10 s; the issue saw 3 s ones missed. */
const REVIEW_TIMEOUT_MS = 3000;

describe('karmada-lite controller: a hostile RIC cannot stall the controller', () => {
  const host = rest('host');
  const pki = makePki();
  const reviewAgent = new Agent({ ca: pki.ca });
  const certFile = path.join(pki.dir, 'tls.crt');
  const keyFile = path.join(pki.dir, 'tls.key');
  let ctrl: Proc | undefined;
  let webhookPort = 0;

  beforeAll(async () => {
    await prepareHost(host, NS);
    pki.issue(certFile, keyFile, 'karmada-lite-webhook');
    webhookPort = await freePort();
    ctrl = await startController([
      '--interpreter-workers', '2',
      '--with-webhook', '--webhook-cert-file', certFile, '--webhook-key-file', keyFile,
      '--webhook-port', String(webhookPort), '--webhook-bind-address', '127.0.0.1',
    ]);
  }, scaled(180_000));

  afterAll(async () => {
    await host.request('DELETE', `${RICS}/${RIC_NAME}`).catch(() => undefined);
    for (const n of SPINNERS) await host.request('DELETE', `/api/v1/namespaces/${NS}/configmaps/${n}`).catch(() => undefined);
    await host.request('DELETE', `${PPS}/spin`).catch(() => undefined);
    await removeDeployments(NS, ['plain']);
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
  });

  it('keeps /healthz and the webhook answering and other kinds propagating, and marks the RIC ScriptsHealthy=False with an Event', async () => {
    const policy = (name: string, selector: Record<string, unknown>) => ({
      apiVersion: 'policy.karmada.io/v1alpha1',
      kind: 'PropagationPolicy',
      metadata: { name, namespace: NS },
      spec: { resourceSelectors: [selector], placement: { clusterAffinity: { clusterNames: ['member1'] } } },
    });
    await host.request('POST', PPS, { body: policy('spin', { apiVersion: 'v1', kind: 'ConfigMap', labelSelector: { matchLabels: { spin: 'yes' } } }) });
    for (const n of SPINNERS) await host.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n, namespace: NS, labels: { spin: 'yes' } }, data: { n: '0' } } });
    for (const n of SPINNERS) await waitFor(`ConfigMap ${n} on member1`, async () => ((await get(rest('member1'), `/api/v1/namespaces/${NS}/configmaps/${n}`)) ? true : undefined));

    await host.request('POST', RICS, { body: hostileRic(RIC_NAME) });

    const probes: Array<{ ok: boolean; why?: string }> = [];
    const reviews: Array<{ ok: boolean; why?: string }> = [];
    let edits = 0;
    let deploymentArrived = false;
    const started = Date.now();
    // The plain Deployment is applied while the hostile script is being run.
    await host.request('POST', PPS, { body: policy('plain', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'plain' }) });
    await host.request('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'plain', namespace: NS },
        spec: { replicas: 1, selector: { matchLabels: { app: 'plain' } }, template: { metadata: { labels: { app: 'plain' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } },
      },
    });
    const probing = (async () => {
      while (Date.now() - started < 15_000) {
        const res = await fetch(`http://127.0.0.1:${ctrl!.port}/healthz`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) }).then(
          (r) => ({ ok: r.status === 200, why: `status ${r.status}` }),
          (e: Error) => ({ ok: false, why: e.message }),
        );
        probes.push(res);
        await new Promise((r) => setTimeout(r, 300));
      }
    })();
    const reviewing = (async () => {
      while (Date.now() - started < 15_000) {
        const res = await sendAdmissionReview(webhookPort, reviewAgent, `u${reviews.length}`, NS, REVIEW_TIMEOUT_MS).then(
          (code) => ({ ok: code === 200, why: `status ${code}` }),
          (e: Error) => ({ ok: false, why: e.message }),
        );
        reviews.push(res);
        await new Promise((r) => setTimeout(r, 500));
      }
    })();
    const editing = (async () => {
      // Each edit reaches member1 and brings the work-status controller back to the hostile InterpretHealth.
      while (Date.now() - started < 15_000) {
        edits++;
        await Promise.all(SPINNERS.map((n) => host.request('PATCH', `/api/v1/namespaces/${NS}/configmaps/${n}`, { body: { data: { n: String(edits) } }, contentType: 'application/merge-patch+json' }).catch(() => undefined)));
        if (!deploymentArrived && (await get(rest('member1'), `/apis/apps/v1/namespaces/${NS}/deployments/plain`))) deploymentArrived = true;
        await new Promise((r) => setTimeout(r, 300));
      }
    })();
    await Promise.all([probing, reviewing, editing]);

    const failedProbes = probes.filter((p) => !p.ok);
    const failedReviews = reviews.filter((p) => !p.ok);
    expect(failedProbes, `${failedProbes.length} of ${probes.length} probes failed: ${failedProbes.map((p) => p.why).join(', ')}\n${await diagnose(ctrl)}`).toEqual([]);
    expect(probes.length).toBeGreaterThan(10);
    expect(failedReviews, `${failedReviews.length} of ${reviews.length} reviews failed: ${failedReviews.map((p) => p.why).join(', ')}`).toEqual([]);
    expect(deploymentArrived, 'the plain Deployment reached member1 while the hostile script ran').toBe(true);
    expect(edits).toBeGreaterThan(10);

    const cond = await waitFor('the RIC ScriptsHealthy=False', async () => {
      const ric = await get(host, `${RICS}/${RIC_NAME}`);
      const c = (ric?.status?.conditions ?? []).find((x: any) => x.type === 'ScriptsHealthy');
      return c?.status === 'False' ? c : undefined;
    });
    // The work-status controller asks for health only once the status was reflected (as Karmada's does),
    // so while ReflectStatus fails, InterpretStatus is the operation reported.
    expect(cond.reason).toBe('ScriptTimeout');
    // Stopped by the sandbox, or (on a machine too loaded for the sandbox to stop it in time) twice by the
    // pool's watchdog, which quarantines the RIC and says so.
    expect(cond.message).toMatch(/^InterpretStatus for v1, Kind=ConfigMap failed: (quarantined: .* last: )?InterpretStatus: script exceeded its 1s budget$/);
    const event = await waitFor('the ScriptTimeout Event on the RIC', async () => {
      const list = await host.request('GET', `/api/v1/events?fieldSelector=involvedObject.name=${RIC_NAME}`);
      return (list.items ?? []).find((e: any) => e.reason === 'ScriptTimeout');
    });
    expect(event).toMatchObject({ type: 'Warning', involvedObject: { kind: 'ResourceInterpreterCustomization', name: RIC_NAME } });
    expect(ctrl!.child.exitCode).toBeNull();
  }, scaled(120_000));
});
