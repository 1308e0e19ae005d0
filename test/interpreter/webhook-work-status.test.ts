// A Work's first report when the kind's status and health come from an interpreter webhook: the
// execution controller's continuation cannot have the answers (the call is still running), so Applied=True
// goes alone as in Karmada, the work-status controller adds the webhook's status once it answers, and the
// execution controller is not run a second time (a second pass would ask the webhook's Retain; with a
// hook that cannot answer Retain that pass marked the Work Applied=False).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KObject } from '../../src/core/object.js';
import { httpsWebhookCaller } from '../../src/interpreter/webhook-interpreter.js';
import { ControlPlane } from '../../src/store/control-plane.js';
import { applied, nginxDeployment, nginxPolicy, workStates } from '../store/plan-fixtures.js';
import { startLoopbackWebhook, type LoopbackWebhook } from './loopback-webhook.js';

const MEMBERS = ['member1', 'member2'];
const RAW_STATUS = { readyReplicas: 7, fromWebhook: true };

let hook: LoopbackWebhook;

beforeAll(async () => {
  // Retain is in the rules but this hook cannot answer it, like a script that defines no retain.
  hook = await startLoopbackWebhook((r) =>
    r.operation === 'Retain' ? { successful: false, status: { code: 404, message: 'no retain' } } : { successful: true, status: { code: 200 }, healthy: true, rawStatus: RAW_STATUS },
  );
});

afterAll(() => hook.close());

describe("a Work's first report with an interpreter webhook for status and health", () => {
  it('is Applied=True alone, then the webhook status from work-status; no second execution pass, never Applied=False', async () => {
    const caller = httpsWebhookCaller();
    const cp = new ControlPlane({ start: new Date('2024-01-01T00:00:00Z'), interpreterWebhooks: caller });
    try {
      for (const name of MEMBERS) cp.apply({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec: { syncMode: 'Push' } });
      cp.apply({
        apiVersion: 'config.karmada.io/v1alpha1',
        kind: 'ResourceInterpreterWebhookConfiguration',
        metadata: { name: 'deployments' },
        webhooks: [
          {
            name: 'deployments.example.com',
            rules: [{ operations: ['InterpretStatus', 'InterpretHealth', 'Retain'], apiGroups: ['apps'], apiVersions: ['v1'], kinds: ['Deployment'] }],
            clientConfig: { url: `${hook.base}/interpret`, caBundle: hook.caBundle },
            interpreterContextVersions: ['v1alpha1'],
            timeoutSeconds: 3,
          },
        ],
      });
      const seen = workStates(cp.store);
      cp.apply(nginxPolicy(MEMBERS));
      cp.apply(nginxDeployment('nginx:1.25'));
      await cp.settleAsync();

      expect(hook.operations).toContain('InterpretStatus');
      expect(hook.operations).not.toContain('Retain');
      for (const member of MEMBERS) {
        const states = seen.filter((w) => w.metadata.namespace === `karmada-es-${member}`);
        expect(states.map(applied)).not.toContain('False');
        const firstApplied = states.findIndex((w) => applied(w) === 'True');
        expect(firstApplied).toBeGreaterThan(0);
        expect(states[firstApplied]!.status?.manifestStatuses).toBeUndefined();
        const last = states[states.length - 1]!;
        const ms = last.status?.manifestStatuses as Array<{ health: string; status?: Record<string, unknown> }>;
        expect(ms).toHaveLength(1);
        expect(ms[0]).toMatchObject({ health: 'Healthy', status: RAW_STATUS });
      }
    } finally {
      caller.close();
    }
  });
});
