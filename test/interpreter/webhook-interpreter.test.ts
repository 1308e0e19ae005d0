// Interpreter webhooks as a layer (src/interpreter/webhook-interpreter.ts) and hook selection
// (src/interpreter/webhook/hooks.ts): spec 3.1 / 3.2, deferral through begin()/end(), no memo unless asked,
// failures as Karmada's texts, per-hook concurrency.
import { describe, expect, it } from 'vitest';
import { createInterpreter } from '../../src/interpreter/interpreter.js';
import { InterpreterPendingError } from '../../src/interpreter/pool-interpreter.js';
import { createWebhookInterpreter, type WebhookCaller, type WebhookRequestInput } from '../../src/interpreter/webhook-interpreter.js';
import { WebhookResponseError } from '../../src/interpreter/webhook/context.js';
import { selectHooks, type WebhookHook } from '../../src/interpreter/webhook/hooks.js';
import { interpreterPort } from '../../src/store/control-plane.js';
import type { KObject } from '../../src/core/object.js';

const config = (name: string, hooks: Array<{ name: string; rules: unknown[]; url?: string; timeoutSeconds?: number; versions?: string[] }>) => ({
  apiVersion: 'config.karmada.io/v1alpha1',
  kind: 'ResourceInterpreterWebhookConfiguration',
  metadata: { name },
  webhooks: hooks.map((h) => ({ name: h.name, clientConfig: { url: h.url ?? `https://127.0.0.1/${h.name}` }, rules: h.rules, interpreterContextVersions: h.versions ?? ['v1alpha1'], timeoutSeconds: h.timeoutSeconds })),
});
const rule = (operations: string[], apiGroups = ['workload.example.io'], apiVersions = ['v1alpha1'], kinds = ['Workload']) => ({ operations, apiGroups, apiVersions, kinds });
const WL = { apiVersion: 'workload.example.io/v1alpha1', kind: 'Workload' };
const workload = (replicas = 3): KObject => ({ ...WL, metadata: { name: 'w', namespace: 'default' }, spec: { replicas } }) as KObject;

describe('hook selection (spec 3.1)', () => {
  it('matches operation, group, version and kind exactly or by *; the first hook by <configuration>/<hook> answers', () => {
    const s = selectHooks([
      config('b', [{ name: 'all.example.com', rules: [rule(['*'], ['*'], ['*'], ['*'])] }]),
      config('a', [
        { name: 'z.example.com', rules: [rule(['InterpretReplica'])] },
        { name: 'y.example.com', rules: [rule(['Retain'], ['workload.example.io'], ['*'], ['Workload'])] },
      ]),
    ]);
    expect(s.hooks.map((h) => h.uid)).toEqual(['a/y.example.com', 'a/z.example.com', 'b/all.example.com']);
    expect(s.find(WL, 'InterpretReplica')?.uid).toBe('a/z.example.com');
    expect(s.find({ apiVersion: 'workload.example.io/v2', kind: 'Workload' }, 'Retain')?.uid).toBe('a/y.example.com');
    expect(s.find({ apiVersion: 'workload.example.io/v2', kind: 'Workload' }, 'InterpretReplica')?.uid).toBe('b/all.example.com');
    expect(s.find({ apiVersion: 'v1', kind: 'ConfigMap' }, 'InterpretHealth')?.uid).toBe('b/all.example.com');
    // Case-sensitive, no prefixes; a hook with no rules never matches.
    expect(selectHooks([config('a', [{ name: 'x.example.com', rules: [rule(['InterpretReplica'], ['workload.example.io'], ['v1alpha1'], ['workload'])] }, { name: 'n.example.com', rules: [] }])]).find(WL, 'InterpretReplica')).toBeUndefined();
    // The core group is "".
    expect(selectHooks([config('a', [{ name: 'x.example.com', rules: [rule(['InterpretHealth'], [''], ['v1'], ['ConfigMap'])] }])]).find({ apiVersion: 'v1', kind: 'ConfigMap' }, 'InterpretHealth')?.uid).toBe('a/x.example.com');
  });
  it('the Service form becomes https://<name>.<namespace>.svc:<port><path>', () => {
    const c = config('a', [{ name: 'x.example.com', rules: [rule(['*'])] }]);
    (c.webhooks[0] as Record<string, unknown>).clientConfig = { service: { namespace: 'karmada-system', name: 'wh', path: '/interpreter' } };
    expect(selectHooks([c]).hooks[0]!.url).toBe('https://wh.karmada-system.svc:443/interpreter');
  });
});

/** A fake caller: answers per operation; records calls; can be held to test concurrency. */
function fakeCaller(answer: (hook: WebhookHook, input: WebhookRequestInput) => unknown) {
  const calls: Array<{ hook: string; input: WebhookRequestInput }> = [];
  const caller: WebhookCaller = async (hook, input) => {
    calls.push({ hook: hook.uid, input });
    return answer(hook, input);
  };
  return { calls, caller };
}

function layer(caller: WebhookCaller, extra: { memo?: boolean; rics?: unknown[]; maxConcurrency?: number } = {}) {
  const real = createInterpreter({ builtin: true, customizations: (extra.rics ?? []) as never });
  const inner = interpreterPort(real);
  const wi = createWebhookInterpreter({ inner, declarative: (t, op) => real.layerFor(t, op) === 'customization', caller, memo: extra.memo, maxConcurrency: extra.maxConcurrency });
  return wi;
}

/** One reconcile as the runner runs it: begin, the body, end; returns the body's outcome and the deferral. */
function reconcile<T>(wi: { begin(): void; end(): Promise<void> | undefined }, body: () => T): { value?: T; error?: unknown; deferred?: Promise<void> } {
  wi.begin();
  let value: T | undefined;
  let error: unknown;
  try {
    value = body();
  } catch (e) {
    error = e;
  }
  return { value, error, deferred: wi.end() };
}

describe('the webhook layer', () => {
  it('defers the first ask, answers the retry, and calls again next time (no memo)', async () => {
    const f = fakeCaller((_h, i) => ({ replicas: (i.object.spec as { replicas: number }).replicas, replicaRequirements: null }));
    const wi = layer(f.caller);
    wi.setConfigurations([config('examples', [{ name: 'workloads.example.com', rules: [rule(['InterpretReplica'])] }])]);
    expect(wi.hookEnabled(WL, 'InterpretReplica')).toBe(true);
    const first = reconcile(wi, () => wi.getReplicas(workload()));
    expect(first.error).toBeInstanceOf(InterpreterPendingError);
    await first.deferred;
    const second = reconcile(wi, () => [wi.getReplicas(workload()), wi.getReplicas(workload())]);
    expect(second.deferred).toBeUndefined();
    expect(second.value).toEqual([{ replicas: 3, replicaRequirements: null }, { replicas: 3, replicaRequirements: null }]);
    expect(f.calls).toHaveLength(1);
    expect(reconcile(wi, () => wi.getReplicas(workload())).error).toBeInstanceOf(InterpreterPendingError);
    expect(f.calls).toHaveLength(2);
  });

  it('with memo, a successful answer is reused; a changed configuration forgets it', async () => {
    const f = fakeCaller(() => ({ replicas: 1 }));
    const wi = layer(f.caller, { memo: true });
    const c = config('examples', [{ name: 'workloads.example.com', rules: [rule(['InterpretReplica'])] }]);
    wi.setConfigurations([c]);
    await reconcile(wi, () => wi.getReplicas(workload())).deferred;
    expect(reconcile(wi, () => wi.getReplicas(workload())).value).toEqual({ replicas: 1, replicaRequirements: null });
    expect(reconcile(wi, () => wi.getReplicas(workload())).value).toEqual({ replicas: 1, replicaRequirements: null });
    expect(f.calls).toHaveLength(1);
    wi.setConfigurations([c]);
    expect(reconcile(wi, () => wi.getReplicas(workload())).error).toBeInstanceOf(InterpreterPendingError);
  });

  it('sends each operation its request fields, and the aggregated items without karmada-lite bookkeeping', async () => {
    const f = fakeCaller((_h, i) => (i.operation === 'InterpretHealth' ? true : i.operation === 'InterpretStatus' ? { readyReplicas: 1 } : i.operation === 'InterpretDependency' ? [] : i.object));
    const wi = layer(f.caller);
    wi.setConfigurations([config('examples', [{ name: 'workloads.example.com', rules: [rule(['*'])] }])]);
    const obs = workload(2);
    const body = () => {
      const out: unknown[] = [];
      for (const run of [
        () => wi.reviseReplica(workload(), 2),
        () => wi.retain(workload(), obs),
        () => wi.aggregateStatus(workload(), [{ clusterName: 'm1', status: { readyReplicas: 1 }, applied: true, health: 'Healthy', settled: true }]),
        () => wi.reflectStatus(obs),
        () => wi.interpretHealth(obs),
        () => wi.getDependencies(workload()),
      ]) {
        try {
          out.push(run());
        } catch (e) {
          out.push(e);
        }
      }
      return out;
    };
    const first = reconcile(wi, body);
    // Every miss of one reconcile is collected before it gives up, so one retry suffices.
    expect((first.value as unknown[]).every((e) => e instanceof InterpreterPendingError)).toBe(true);
    await first.deferred;
    const second = reconcile(wi, body);
    expect(second.deferred).toBeUndefined();
    expect(second.value).toEqual([workload(), workload(), workload(), { readyReplicas: 1 }, true, []]);
    const byOp = Object.fromEntries(f.calls.map((c) => [c.input.operation, c.input]));
    expect(byOp.ReviseReplica).toMatchObject({ desiredReplicas: 2 });
    expect(byOp.Retain).toMatchObject({ observedObject: obs });
    expect(byOp.AggregateStatus!.aggregatedStatus).toEqual([{ clusterName: 'm1', status: { readyReplicas: 1 }, applied: true, health: 'Healthy' }]);
  });

  it('a failure is the answer once, wrapped as Karmada wraps it; the retry calls again; no fallback to native', async () => {
    let fail = true;
    const f = fakeCaller(() => {
      if (fail) throw new WebhookResponseError('received invalid webhook response: webhook returned nil response.replicas');
      return { replicas: 2 };
    });
    const wi = layer(f.caller);
    // A Deployment has a native InterpretReplica, but a matching hook claims it first.
    wi.setConfigurations([config('examples', [{ name: 'workloads.example.com', rules: [rule(['InterpretReplica'], ['apps'], ['v1'], ['Deployment'])] }])]);
    const deploy = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'default' }, spec: { replicas: 5 } } as KObject;
    await reconcile(wi, () => wi.getReplicas(deploy)).deferred;
    const failed = reconcile(wi, () => wi.getReplicas(deploy));
    expect((failed.error as Error).message).toBe('Internal error occurred: failed calling webhook "examples/workloads.example.com": received invalid webhook response: webhook returned nil response.replicas');
    fail = false;
    const retry = reconcile(wi, () => wi.getReplicas(deploy));
    expect(retry.error).toBeInstanceOf(InterpreterPendingError);
    await retry.deferred;
    expect(reconcile(wi, () => wi.getReplicas(deploy)).value).toEqual({ replicas: 2, replicaRequirements: null });
  });

  it('a transport error and a timeout read as failed to call webhook; an unknown context version fails before calling', async () => {
    const f = fakeCaller((h) => {
      if (h.name === 'refused.example.com') throw new Error('connect ECONNREFUSED 127.0.0.1:1');
      return new Promise(() => undefined);
    });
    const wi = layer(f.caller);
    wi.setConfigurations([
      config('a', [{ name: 'refused.example.com', rules: [rule(['InterpretReplica'])] }]),
      config('b', [{ name: 'slow.example.com', timeoutSeconds: 1, rules: [rule(['InterpretHealth'])] }]),
      config('c', [{ name: 'old.example.com', versions: ['v1beta9'], rules: [rule(['InterpretStatus'])] }]),
    ]);
    const body = () => [wi.getReplicas, wi.interpretHealth, wi.reflectStatus].map((fn) => {
      try {
        return fn(workload());
      } catch (e) {
        return (e as Error).message;
      }
    });
    await reconcile(wi, body).deferred;
    expect(reconcile(wi, body).value).toEqual([
      'Internal error occurred: failed calling webhook "a/refused.example.com": failed to call webhook: connect ECONNREFUSED 127.0.0.1:1',
      'Internal error occurred: failed calling webhook "b/slow.example.com": failed to call webhook: context deadline exceeded (no answer within timeoutSeconds 1)',
      'Internal error occurred: failed calling webhook "c/old.example.com": could not create ResourceInterpreterContext objects: webhook does not accept known ResourceInterpreterContext versions (v1alpha1)',
    ]);
    expect(f.calls.map((c) => c.hook)).toEqual(['a/refused.example.com', 'b/slow.example.com']);
  });

  it('a user RIC wins over a matching hook; kinds no hook claims go to the layers after', async () => {
    const ric = {
      apiVersion: 'config.karmada.io/v1alpha1',
      kind: 'ResourceInterpreterCustomization',
      metadata: { name: 'wl' },
      spec: { target: WL, customizations: { replicaResource: { luaScript: 'function GetReplicas(o) return 7, nil end' } } },
    };
    const f = fakeCaller(() => true);
    const wi = layer(f.caller, { rics: [ric] });
    wi.setConfigurations([config('examples', [{ name: 'workloads.example.com', rules: [rule(['*'])] }])]);
    expect(wi.hookFor(WL, 'InterpretReplica')).toBeUndefined();
    expect(wi.hookFor(WL, 'InterpretHealth')?.uid).toBe('examples/workloads.example.com');
    expect(reconcile(wi, () => wi.getReplicas(workload())).value).toMatchObject({ replicas: 7 });
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } } as KObject;
    expect(wi.hookEnabled(cm, 'InterpretHealth')).toBe(false);
    expect(f.calls).toHaveLength(0);
  });

  it('each hook has its own bound: a hook at its limit does not hold up another hook', async () => {
    const held: Array<() => void> = [];
    const started: string[] = [];
    const caller: WebhookCaller = (hook, input) => {
      started.push(`${hook.name}:${(input.object.metadata as { name: string }).name}`);
      if (hook.name === 'slow.example.com') return new Promise((r) => held.push(() => r(true)));
      return Promise.resolve(true);
    };
    const wi = layer(caller, { maxConcurrency: 1 });
    wi.setConfigurations([
      config('a', [{ name: 'slow.example.com', rules: [rule(['InterpretHealth'], ['workload.example.io'], ['v1alpha1'], ['Workload'])] }]),
      config('b', [{ name: 'fast.example.com', rules: [rule(['InterpretHealth'], ['apps'], ['v1'], ['Deployment'])] }]),
    ]);
    const named = (name: string, type = WL) => ({ ...type, metadata: { name, namespace: 'default' } }) as KObject;
    reconcile(wi, () => wi.interpretHealth(named('w1')));
    reconcile(wi, () => wi.interpretHealth(named('w2')));
    const fast = reconcile(wi, () => wi.interpretHealth(named('d1', { apiVersion: 'apps/v1', kind: 'Deployment' })));
    await fast.deferred;
    expect(reconcile(wi, () => wi.interpretHealth(named('d1', { apiVersion: 'apps/v1', kind: 'Deployment' }))).value).toBe(true);
    // The slow hook runs one call at a time: w2 waits for w1.
    expect(started).toEqual(['slow.example.com:w1', 'fast.example.com:d1']);
    expect(wi.inflight()).toBe(2);
    held.shift()!();
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual(['slow.example.com:w1', 'fast.example.com:d1', 'slow.example.com:w2']);
    held.shift()!();
    await wi.idle();
    expect(wi.inflight()).toBe(0);
  });
});
