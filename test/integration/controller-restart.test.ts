// End to end: templates deleted while the controller is down (kill -9) are cleaned up when it starts again.
// No watch event ever tells the new process about those deletions, and the test apiservers run no garbage
// collector by default: the binding controller finds each binding whose template is gone and deletes it,
// which takes its Works and member copies. A template deleted and created again meanwhile (another uid)
// ends up propagated, the new one's content on the members.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './env.js';
import { get, prepareHost, rest, startController, stopController, type Proc } from './harness.js';

const NS = `restart-e2e-${Date.now().toString(36)}`;
const MEMBERS = ['member1', 'member2'] as const;
/** Deleted while the controller is down. */
const GONE = Array.from({ length: 12 }, (_, i) => `gone-${i}`);
/** Deleted and created again while the controller is down. */
const AGAIN = 'again';

const cmPath = (name: string) => `/api/v1/namespaces/${NS}/configmaps/${name}`;
const bindingPath = (name: string) => `/apis/work.karmada.io/v1alpha2/namespaces/${NS}/resourcebindings/${name}-configmap`;
const policyPath = `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies/restart`;
const configMap = (name: string, level: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, labels: { restart: 'true' } }, data: { level } });

describe('a controller killed while templates are deleted', () => {
  const host = rest('host');
  let ctrl: Proc | undefined;

  /** The Works, in each member's execution namespace, of this suite's bindings named after `names`. */
  async function worksOf(names: readonly string[]): Promise<string[]> {
    const want = new Set(names.map((n) => `${n}-configmap`));
    const out: string[] = [];
    for (const m of MEMBERS) {
      const list = await host.request<{ items: Array<{ metadata: { name: string; annotations?: Record<string, string> } }> }>('GET', `/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-${m}/works`);
      for (const w of list.items) {
        const a = w.metadata.annotations ?? {};
        if (a['resourcebinding.karmada.io/namespace'] === NS && want.has(a['resourcebinding.karmada.io/name'] ?? '')) out.push(`${m}/${w.metadata.name}`);
      }
    }
    return out;
  }

  /** Which of `names` still have a binding, a Work or a member copy. */
  async function leftOf(names: readonly string[]): Promise<string[]> {
    const left: string[] = [];
    for (const n of names) {
      if (await get(host, bindingPath(n))) left.push(`binding ${n}`);
      for (const m of MEMBERS) if (await get(rest(m), cmPath(n))) left.push(`${m} copy ${n}`);
    }
    return [...left, ...(await worksOf(names)).map((w) => `work ${w}`)];
  }

  const explained = <T>(p: Promise<T>): Promise<T> =>
    p.catch((e: Error) => {
      throw new Error(`${e.message}\ncontroller log (last 40 lines):\n${ctrl?.logs.slice(-40).join('\n')}`);
    });

  beforeAll(async () => {
    await prepareHost(host, NS);
    ctrl = await startController();
  });

  afterAll(async () => {
    for (const n of [...GONE, AGAIN]) await host.request('DELETE', cmPath(n)).catch(() => undefined);
    if (ctrl && ctrl.child.exitCode === null && ctrl.child.signalCode === null) {
      await waitFor('the member copies removed', async () => ((await leftOf([...GONE, AGAIN])).length ? undefined : true)).catch((e: Error) => console.warn(`cleanup: ${e.message}`));
    }
    await host.request('DELETE', policyPath).catch(() => undefined);
    await stopController(ctrl);
  });

  it('propagates the templates, then is killed with SIGKILL', async () => {
    await host.request('POST', `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`, {
      body: {
        apiVersion: 'policy.karmada.io/v1alpha1',
        kind: 'PropagationPolicy',
        metadata: { name: 'restart', namespace: NS },
        spec: { resourceSelectors: [{ apiVersion: 'v1', kind: 'ConfigMap', labelSelector: { matchLabels: { restart: 'true' } } }], placement: { clusterAffinity: { clusterNames: [...MEMBERS] } } },
      },
    });
    for (const n of [...GONE, AGAIN]) await host.request('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: configMap(n, 'info') });
    await explained(
      waitFor(
        'every copy on both members',
        async () => {
          for (const n of [...GONE, AGAIN]) for (const m of MEMBERS) if (!(await get(rest(m), cmPath(n)))) return undefined;
          return true;
        },
        60_000,
      ),
    );
    expect(await worksOf([...GONE, AGAIN])).toHaveLength((GONE.length + 1) * MEMBERS.length);
    const child = ctrl!.child;
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
  });

  it('finds, after a restart, bindings whose templates went meanwhile, and removes them, their Works and their copies', async () => {
    const oldUid = (await get(host, cmPath(AGAIN))).metadata.uid;
    for (const n of [...GONE, AGAIN]) await host.request('DELETE', cmPath(n));
    const fresh = await host.request<{ metadata: { uid: string } }>('POST', `/api/v1/namespaces/${NS}/configmaps`, { body: configMap(AGAIN, 'debug') });
    expect(fresh.metadata.uid).not.toBe(oldUid);
    // Nobody cleaned up while the controller was down (a garbage collector, where one runs, only marks the bindings deleted).
    for (const n of GONE) expect(await get(host, bindingPath(n)), `binding ${n}`).toBeDefined();

    ctrl = await startController();
    await explained(waitFor('no binding, Work or member copy left of the deleted templates', async () => ((await leftOf(GONE)).length ? undefined : true), 90_000));

    // The template created again is propagated: its binding is the new uid's, its copies carry the new content.
    const b = await explained(
      waitFor('the binding of the template created again, owned by its new uid', async () => {
        const o = await get(host, bindingPath(AGAIN));
        return o && !o.metadata.deletionTimestamp && o.metadata.ownerReferences?.[0]?.uid === fresh.metadata.uid ? o : undefined;
      }, 90_000),
    );
    expect(b.spec.resource.uid).toBe(fresh.metadata.uid);
    for (const m of MEMBERS) {
      const copy = await explained(
        waitFor(`the new content on ${m}`, async () => {
          const c = await get(rest(m), cmPath(AGAIN));
          return c?.data?.level === 'debug' ? c : undefined;
        }, 90_000),
      );
      expect(copy.metadata.annotations['resourcetemplate.karmada.io/uid']).toBe(fresh.metadata.uid);
    }
    expect(await worksOf([AGAIN])).toHaveLength(MEMBERS.length);
  });
});
