import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { compileCheck, compileCheckMessage } from '../../src/interpreter/check.js';
import { createInterpreter } from '../../src/interpreter/interpreter.js';
import { NativeInterpreter } from '../../src/interpreter/native.js';
import { mergeCustomizations, typedOutputOf } from '../../src/interpreter/ric.js';
import { InterpreterError, type RIC } from '../../src/interpreter/types.js';
import { verifyInterpreterResponse } from '../../src/interpreter/webhook/context.js';
import { scaled } from '../time-scale.js';

function ric(name: string, customizations: Record<string, string>, target = { apiVersion: 'example.io/v1', kind: 'Widget' }, annotations?: Record<string, string>): RIC {
  return {
    apiVersion: 'config.karmada.io/v1alpha1',
    kind: 'ResourceInterpreterCustomization',
    metadata: { name, ...(annotations ? { annotations } : {}) },
    spec: { target, customizations: Object.fromEntries(Object.entries(customizations).map(([k, v]) => [k, { luaScript: v }])) },
  };
}

const widget = (extra: Record<string, unknown> = {}) => ({ apiVersion: 'example.io/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns' }, ...extra });

describe('merging RICs for one target', () => {
  it('takes each operation from the first RIC by name that defines it, and every dependency script', () => {
    const merged = mergeCustomizations([
      ric('b', { healthInterpretation: 'function InterpretHealth(o) return false end', dependencyInterpretation: 'B' }),
      ric('a', { healthInterpretation: 'function InterpretHealth(o) return true end', replicaResource: '', dependencyInterpretation: 'A' }),
      ric('c', { replicaResource: 'function GetReplicas(o) return 7 end' }),
    ]);
    const t = merged.get('example.io/v1/Widget')!;
    expect(t.scripts.InterpretHealth!.script).toContain('return true');
    expect(t.scripts.InterpretReplica!.script).toContain('return 7');
    expect(t.dependencyScripts.map((d) => d.script)).toEqual(['A', 'B']);
  });

  it('unions dependency results of several scripts, sorted and de-duplicated', () => {
    const interp = createInterpreter({
      builtin: false,
      customizations: [
        ric('one', { dependencyInterpretation: 'function GetDependencies(o) return {{apiVersion="v1", kind="Secret", namespace="ns", name="s"}} end' }),
        ric('two', {
          dependencyInterpretation:
            'function GetDependencies(o) return {{apiVersion="v1", kind="Secret", namespace="ns", name="s"}, {apiVersion="v1", kind="ConfigMap", namespace="ns", name="c"}} end',
        }),
      ],
    });
    expect(interp.getDependencies(widget())).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'ns', name: 'c' },
      { apiVersion: 'v1', kind: 'Secret', namespace: 'ns', name: 's' },
    ]);
  });
});

describe('lookup order', () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'ns', generation: 1 },
    spec: { replicas: 3, template: { spec: { containers: [{ name: 'c' }] } } },
    status: { observedGeneration: 1, updatedReplicas: 3, availableReplicas: 3, replicas: 3 },
  };

  it('uses a user RIC before the built-in, operation by operation', () => {
    const interp = createInterpreter({ customizations: [ric('mine', { healthInterpretation: 'function InterpretHealth(o) return false end' }, { apiVersion: 'apps/v1', kind: 'Deployment' })] });
    expect(interp.layerFor({ apiVersion: 'apps/v1', kind: 'Deployment' }, 'InterpretHealth')).toBe('customization');
    expect(interp.interpretHealth(deployment)).toBe(false);
    expect(interp.layerFor({ apiVersion: 'apps/v1', kind: 'Deployment' }, 'InterpretReplica')).toBe('builtin');
    expect(interp.getReplicas(deployment).replicas).toBe(3);
  });

  it('falls back to the native layer for InterpretStatus on any kind', () => {
    const interp = createInterpreter({ builtin: false });
    expect(interp.layerFor({ apiVersion: 'example.io/v1', kind: 'Widget' }, 'InterpretStatus')).toBe('native');
    expect(interp.reflectStatus(widget({ status: { a: 1 } }))).toEqual({ a: 1 });
    expect(interp.reflectStatus(widget())).toBeNull();
    expect(() => interp.reflectStatus(widget({ status: 'bad' }))).toThrow('.status accessor error: bad is of the type string, expected map[string]interface{}');
  });

  it('reports no hook and the native not-found errors', () => {
    const interp = createInterpreter({ builtin: false });
    expect(interp.hookEnabled({ apiVersion: 'example.io/v1', kind: 'Widget' }, 'InterpretHealth')).toBe(false);
    expect(() => interp.getReplicas(widget())).toThrow('default InterpretReplica interpreter for "example.io/v1, Kind=Widget" not found');
    expect(() => interp.getDependencies(widget())).toThrow('default interpreter for operation InterpretDependency not found');
    expect(() => interp.getComponents(widget())).toThrow('no plan to implement this method yet');
    const none = createInterpreter({ builtin: false, native: false });
    expect(() => none.getReplicas(widget())).toThrow('rule is not enabled');
  });

  it('accepts native handlers registered in TypeScript', () => {
    const native = new NativeInterpreter();
    native.register({ apiVersion: 'example.io/v1', kind: 'Widget' }, { getReplicas: () => ({ replicas: 9, requirements: null }) });
    const interp = createInterpreter({ builtin: false, native });
    expect(interp.getReplicas(widget()).replicas).toBe(9);
  });
});

describe('health is tri-state', () => {
  const interp = createInterpreter({
    builtin: false,
    customizations: [ric('h', { healthInterpretation: 'function InterpretHealth(o) if o.spec.mode == "err" then error("x") end return o.spec.mode == "ok" end' })],
  });
  it('maps true/false/error to Healthy/Unhealthy/Unknown and no hook to Healthy', () => {
    expect(interp.health(widget({ spec: { mode: 'ok' } }))).toBe('Healthy');
    expect(interp.health(widget({ spec: { mode: 'bad' } }))).toBe('Unhealthy');
    expect(interp.health(widget({ spec: { mode: 'err' } }))).toBe('Unknown');
    expect(interp.health({ apiVersion: 'example.io/v1', kind: 'Other' })).toBe('Healthy');
  });
});

describe('typed-output annotation', () => {
  it('reads per-operation options and applies them', () => {
    const r = ric(
      't',
      {
        statusReflection: 'function ReflectStatus(o) if o.spec.none then return nil end return { loadBalancer = {} } end',
        statusAggregation: 'function AggregateStatus(d, items) d.status = { a = 1 } return d end',
      },
      undefined,
      { 'interpreter.karmada-lite.io/typed-output': 'InterpretStatus: {nilIsNull: true, emptyObjects: [loadBalancer]}\nAggregateStatus: {nulls: [status.currentMetrics]}' },
    );
    expect(typedOutputOf(r).InterpretStatus).toEqual({ emptyObjects: ['loadBalancer'], nulls: undefined, nilIsNull: true });
    const interp = createInterpreter({ builtin: false, customizations: [r] });
    expect(interp.reflectStatus(widget({ spec: { none: false } }))).toEqual({ loadBalancer: {} });
    expect(interp.reflectStatus(widget({ spec: { none: true } }))).toBeNull();
    expect(interp.aggregateStatus(widget(), [])).toMatchObject({ status: { a: 1, currentMetrics: null } });
  });
});

describe('compile checks', () => {
  it('reports PASS, UNSET and ERROR per rule in rule order', () => {
    const r = ric('c', { healthInterpretation: 'function InterpretHealth(o) return true end', replicaResource: 'function GetReplicas(o) return 1 // 2 end' });
    expect(compileCheck(r).map((x) => `${x.rule}:${x.status}`)).toEqual([
      'Retain:UNSET',
      'InterpretReplica:ERROR',
      'InterpretComponent:UNSET',
      'ReviseReplica:UNSET',
      'InterpretStatus:UNSET',
      'AggregateStatus:UNSET',
      'InterpretHealth:PASS',
      'InterpretDependency:UNSET',
    ]);
    expect(compileCheckMessage(r)).toBe("InterpreterOperation(InterpretReplica) Lua script error: <string> line:1(column:35) near '//':   syntax error\n");
    expect(compileCheckMessage(ric('ok', { retention: 'function Retain(d, o) return d end' }))).toBeNull();
  });
});

// Issue 32: the hostile RICs of test/lua/fixtures/hostile (the controller's end-to-end tests run them too).
describe('hostile scripts fail as script errors, bounded', () => {
  const hostile = (name: string): RIC => parse(readFileSync(join(import.meta.dirname, '..', 'lua', 'fixtures', 'hostile', `${name}.yaml`), 'utf8')) as RIC;
  const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns' }, spec: { replicas: 3 } };
  const failureOf = (f: () => unknown): Error => {
    try {
      f();
    } catch (e) {
      return e as Error;
    }
    throw new Error('expected the call to fail');
  };

  it.each(['huge-error-message', 'huge-assert-message'])('%s: the 50 MB message leaves as its first 4 KiB and its size', { timeout: scaled(40_000) }, (name) => {
    // Building 50 MB of strings takes a while on a busy machine: a budget that lets the script finish.
    const interp = createInterpreter({ customizations: [hostile(name)], budgetMs: 30_000 });
    const e = failureOf(() => interp.reflectStatus(deployment));
    expect(e).toBeInstanceOf(InterpreterError);
    expect(Buffer.byteLength(e.message)).toBeLessThan(4096 + 200);
    expect(e.message).toMatch(/\.\.\. \[message cut to its first 4096 of 499999\d\d bytes\]$/);
  });

  it('huge-result-by-references: refused while converting, naming the operation and the bound', () => {
    const interp = createInterpreter({ customizations: [hostile('huge-result-by-references')] });
    expect(failureOf(() => interp.reflectStatus(deployment)).message).toMatch(/^InterpretStatus: result is larger than 1572864 bytes as JSON \(conversion stopped at \d+ bytes\): etcd stores no object past 1572864 bytes/);
  });

  it('an object without a kind quotes the result, bounded', () => {
    const interp = createInterpreter({
      customizations: [ric('nokind', { retention: 'function Retain(d, o) local s = string.format("%0999999d", 1) return {a = s} end' })],
    });
    const e = failureOf(() => interp.retain(widget(), widget()));
    expect(e.message.startsWith(`Object 'Kind' is missing in '{"a":"000`)).toBe(true);
    expect(e.message).toMatch(/\[message cut to its first 4096 of 10000\d\d bytes\]$/);
  });

  it('find-plain-quadratic answers within the budget', () => {
    const interp = createInterpreter({ customizations: [hostile('find-plain-quadratic')] });
    expect(interp.reflectStatus(deployment)).toEqual({ found: false });
  }, scaled(20_000));

  it.each([
    ['nan', 'NaN', "Karmada's int32 conversion would make it -2147483648"],
    ['infinity', '+Inf', "Karmada's int32 conversion would make it -2147483648"],
    ['1e300', '1e+300', "Karmada's int32 conversion would make it -2147483648"],
    ['int32-overflow', '2147483648', "Karmada's int32 conversion would make it -2147483648"],
    ['negative', '-1', 'a replica count is never negative'],
  ])('replicas-%s: a script error naming the value, never a count', (name, shown, why) => {
    const interp = createInterpreter({ customizations: [hostile(`replicas-${name}`)] });
    expect(() => interp.getReplicas(deployment)).toThrow(
      `InterpretReplica: replicas ${shown} returned by the script is not a whole number from 0 to 2147483647 (${why}); nothing is written`,
    );
  });

  it('replicas in range are Karmada’s: truncated toward zero, int32 max kept', () => {
    const answer = (n: string) => createInterpreter({ builtin: false, customizations: [ric('r', { replicaResource: `function GetReplicas(o) return ${n} end` })] }).getReplicas(widget()).replicas;
    expect(answer('2.7')).toBe(2);
    expect(answer('-0.5')).toBe(0);
    expect(answer('2147483647')).toBe(2147483647);
  });

  it('ReviseReplica is never asked for a count out of range', () => {
    const interp = createInterpreter({ builtin: false, customizations: [ric('r', { replicaRevision: 'function ReviseReplica(o, n) o.spec = {replicas = n} return o end' })] });
    expect(interp.reviseReplica(widget(), 4)).toMatchObject({ spec: { replicas: 4 } });
    expect(() => interp.reviseReplica(widget(), -3)).toThrow('ReviseReplica: replicas -3 asked of the script is not a whole number from 0 to 2147483647');
    expect(() => interp.reviseReplica(widget(), NaN)).toThrow('ReviseReplica: replicas NaN asked of the script');
  });

  it('a webhook answering negative replicas is refused; int32 is all Karmada checks', () => {
    const answer = (replicas: number) => ({ response: { uid: 'u', successful: true, replicas } });
    expect(() => verifyInterpreterResponse('InterpretReplica', 'u', answer(-1))).toThrow('received invalid webhook response: webhook returned response.replicas -1: a replica count is never negative');
    expect(verifyInterpreterResponse('InterpretReplica', 'u', answer(2147483647)).replicas).toBe(2147483647);
    expect(() => verifyInterpreterResponse('InterpretReplica', 'u', answer(2147483648))).toThrow('cannot unmarshal number into Go struct field ResourceInterpreterContext.response.replicas of type int32');
  });
});
