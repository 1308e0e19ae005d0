// End to end (issue 32, "containment, round two"): what a script produces (its error message, its result,
// the memory it holds, the time a library call takes) is under its budget, and no RIC can crash-loop the
// controller. The real binary on the real apiservers, with the hostile RICs present before it starts (the
// restart case) and applied again while it runs: it stays alive (same pid), /healthz and /readyz answer, a
// plain Deployment reaches member1, each hostile RIC gets ScriptsHealthy=False with a bounded message (the
// string.find case, now linear, simply answers), and no status write is refused with 413.
//
// One kind per hostile RIC (a RIC names one target kind); their objects are propagated to member1, where
// the work-status controller reflects their status through the hostile ReflectStatus.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './env.js';
import { diagnose, get, prepareHost, removeDeployments, rest, startController, stopController, type Proc, createDeploymentWithPolicy } from './harness.js';
import { scaled } from '../time-scale.js';
import { hostileOutputCases, hostileOutputPolicy, hostileOutputRic, type HostileCase } from './hostile-output.js';

const NS = `containment2-e2e-${Date.now().toString(36)}`;
const RICS = '/apis/config.karmada.io/v1alpha1/resourceinterpretercustomizations';
const PPS = `/apis/policy.karmada.io/v1alpha1/namespaces/${NS}/propagationpolicies`;
/** The condition's message is capped at 4096 characters plus "..." (src/core/interpreter-health.ts). */
const MESSAGE_BOUND = 4096 + 3;
const CASES = hostileOutputCases(NS);
type Case = HostileCase;

const ricName = (c: Case, round: string) => `hostile-${c.id}-${round}-${NS}`;
const ric = (c: Case, round: string) => hostileOutputRic(c, ricName(c, round), round);

const condition = (o: any, type: string) => (o?.status?.conditions ?? []).find((x: any) => x.type === type);

/** The Work on member1 of object `name` of the case's kind. */
async function workOf(c: Case, name: string): Promise<any> {
  const host = rest('host');
  const items = (await host.request('GET', '/apis/work.karmada.io/v1alpha1/namespaces/karmada-es-member1/works')).items as any[];
  const binding = `${name}-${c.target.kind.toLowerCase()}`;
  return items.find((w) => w.metadata.annotations?.['resourcebinding.karmada.io/namespace'] === NS && w.metadata.annotations?.['resourcebinding.karmada.io/name'] === binding);
}

describe('karmada-lite controller: hostile script output and crash loops are contained (issue 32)', () => {
  const host = rest('host');
  const member1 = rest('member1');
  let ctrl: Proc | undefined;
  let pid: number | undefined;

  beforeAll(async () => {
    await prepareHost(host, NS);
    for (const c of CASES) {
      await host.request('POST', PPS, { body: hostileOutputPolicy(c, NS) });
      for (const n of c.names) await host.request('POST', c.path, { body: c.objects(n) });
    }
    // Every hostile RIC is there before the controller starts: the restart case.
    for (const c of CASES) await host.request('POST', RICS, { body: ric(c, 'start') });
    ctrl = await startController(['--interpreter-workers', '2']);
    pid = ctrl.child.pid;
  }, scaled(180_000));

  afterAll(async () => {
    for (const round of ['start', 'live']) for (const c of CASES) await host.request('DELETE', `${RICS}/${ricName(c, round)}`).catch(() => undefined);
    await removeDeployments(NS, ['plain-start', 'plain-live']);
    for (const c of CASES) {
      for (const n of c.names) await host.request('DELETE', `${c.path}/${n}`).catch(() => undefined);
      await host.request('DELETE', `${PPS}/hostile-${c.id}`).catch(() => undefined);
    }
    const code = await stopController(ctrl);
    if (ctrl && code !== 0) console.error(ctrl.logs.slice(-50).join('\n'));
  });

  /** Everything the issue asks of the controller while the hostile RICs of `round` are in place. */
  async function contained(round: string): Promise<void> {
    const plain = `plain-${round}`;
    await createDeploymentWithPolicy(NS, plain, 1, { placement: { clusterAffinity: { clusterNames: ['member1'] } } });
    await waitFor(`the plain Deployment ${plain} on member1`, async () => ((await get(member1, `/apis/apps/v1/namespaces/${NS}/deployments/${plain}`)) ? true : undefined), 60_000).catch(async (e) => {
      throw new Error(`${(e as Error).message}\n${await diagnose(ctrl)}`);
    });
    for (const c of CASES) {
      const ricPath = `${RICS}/${ricName(c, round)}`;
      if (!c.reason) {
        // The linear search answers within the budget: its result is the member object's reflected status
        // (or, on a machine too loaded for 1 s, the budget stopped it: ScriptTimeout).
        const outcome = await waitFor(`${c.id}: the reflected status in the Work, or a timeout`, async () => {
          const st = ((await workOf(c, c.names[0]!))?.status?.manifestStatuses ?? [])[0]?.status;
          if (st && 'found' in st) return { status: st };
          const cond = condition(await get(host, ricPath), 'ScriptsHealthy');
          return cond?.status === 'False' ? { cond } : undefined;
        }, 60_000);
        if ('status' in outcome) expect.soft(outcome.status, c.what).toEqual({ found: false });
        else expect.soft(outcome.cond.reason, `${c.what}: ${outcome.cond.message}`).toBe('ScriptTimeout');
        continue;
      }
      const cond = await waitFor(`${c.id}: ScriptsHealthy=False on ${ricName(c, round)}`, async () => {
        const c2 = condition(await get(host, ricPath), 'ScriptsHealthy');
        return c2?.status === 'False' ? c2 : undefined;
      }, 60_000);
      expect.soft([c.reason, 'ScriptTimeout'], `${c.what}: ${cond.message}`).toContain(cond.reason);
      expect.soft(cond.message.length, `${c.what}: the condition's message is bounded`).toBeLessThanOrEqual(MESSAGE_BOUND);
      expect.soft(cond.message, c.what).toMatch(/^InterpretStatus for /);
      if (c.message && cond.reason === c.reason) expect.soft(cond.message, c.what).toMatch(c.message);
      console.info(`${round}: ${c.id}: ${cond.reason}, ${cond.message.length} characters: ${cond.message.slice(0, 160)}`);
      if (c.quarantined) {
        // Both objects' calls cost a worker each time: the RIC is quarantined, its calls failing at once.
        const q = await waitFor(`${c.id}: quarantined`, async () => {
          const c2 = condition(await get(host, ricPath), 'ScriptsHealthy');
          return c2?.status === 'False' && c2.message.includes('quarantined:') ? c2 : undefined;
        }, 60_000);
        expect.soft(q.message, c.what).toMatch(/failed: quarantined: calls failed at once until .* \(or a change to the RIC\): its scripts cost the interpreter worker \d+ times, last: /);
      }
      // The Work keeps a small status: nothing the script produced was written into it.
      for (const n of c.names) {
        const w = await workOf(c, n);
        expect.soft(w, `${c.id}: the Work of ${n}`).toBeDefined();
        expect.soft(JSON.stringify(w ?? {}).length, `${c.id}: the Work of ${n}`).toBeLessThan(64 * 1024);
      }
    }
    for (const probe of ['/healthz', '/readyz']) {
      const res = await fetch(`http://127.0.0.1:${ctrl!.port}${probe}`, { signal: AbortSignal.timeout(scaled(5000)) });
      expect(res.status, probe).toBe(200);
    }
    expect(ctrl!.child.exitCode, 'the controller is alive').toBeNull();
    expect(ctrl!.child.signalCode).toBeNull();
    expect(ctrl!.child.pid).toBe(pid);
    const refused = ctrl!.logs.filter((l) => /\b413\b|Request Entity Too Large|heap out of memory/i.test(l));
    expect(refused, 'no write refused as too large, no heap exhaustion').toEqual([]);
  }

  it('with every hostile RIC present before it starts: Ready, alive, other kinds propagated, each RIC ScriptsHealthy=False with a bounded message', async () => {
    await contained('start');
  }, scaled(240_000));

  it('with the hostile RICs applied again while it runs (their objects edited): the same', async () => {
    for (const c of CASES) await host.request('DELETE', `${RICS}/${ricName(c, 'start')}`);
    for (const c of CASES) await host.request('POST', RICS, { body: ric(c, 'live') });
    // Each object changed on the host reaches member1, and the work-status controller reflects it again.
    for (const c of CASES) for (const n of c.names) await host.request('PATCH', `${c.path}/${n}`, { body: { metadata: { annotations: { round: 'live' } } }, contentType: 'application/merge-patch+json' });
    await contained('live');
  }, scaled(240_000));
});
