import { describe, expect, it } from 'vitest';
import { luaToJs } from '../../src/lua/convert.js';
import { LuaSandbox } from '../../src/lua/sandbox.js';

/** Runs `f` with the arguments as JS values (the sandbox converts them, reusing earlier conversions). */
function call(sb: LuaSandbox, script: string, args: unknown[]): unknown {
  return sb.run(script, 'f', 'Test', args, 1, (L) => luaToJs(L, 1));
}

const obj = () => ({
  kind: 'Deployment',
  metadata: { name: 'a', labels: { app: 'x' } },
  spec: { replicas: 3, containers: [{ name: 'c', image: 'i:1' }, { name: 'd', image: 'i:2' }] },
  status: { readyReplicas: 1 },
});

const READ = `function f(o) return {o.metadata.name, o.spec.replicas, #o.spec.containers, o.spec.containers[2].image, o.status.readyReplicas} end`;

describe('an argument converted by an earlier call', () => {
  it('answers as a fresh conversion when the script only reads it', () => {
    const sb = new LuaSandbox();
    const d = obj();
    for (let i = 0; i < 3; i++) expect(call(sb, READ, [d])).toEqual(['a', 3, 2, 'i:2', 1]);
  });

  it('shows what the caller changed in place between calls, at every depth', () => {
    const sb = new LuaSandbox();
    const d = obj();
    expect(call(sb, READ, [d])).toEqual(['a', 3, 2, 'i:2', 1]);
    d.spec.replicas = 5;
    d.status.readyReplicas = 4;
    expect(call(sb, READ, [d])).toEqual(['a', 5, 2, 'i:2', 4]);
    d.spec.containers[1]!.image = 'i:3';
    expect(call(sb, READ, [d])).toEqual(['a', 5, 2, 'i:3', 4]);
    d.spec.containers.pop();
    d.spec.containers.push({ name: 'e', image: 'i:4' });
    expect(call(sb, READ, [d])).toEqual(['a', 5, 2, 'i:4', 4]);
    d.spec = { replicas: 7, containers: [{ name: 'c', image: 'i:1' }, { name: 'f', image: 'i:5' }] };
    expect(call(sb, READ, [d])).toEqual(['a', 7, 2, 'i:5', 4]);
    delete (d as { status?: unknown }).status;
    expect(call(sb, `function f(o) return o.status == nil end`, [d])).toBe(true);
  });

  it('is not reused after the script wrote to it', () => {
    const sb = new LuaSandbox();
    const d = obj();
    const write = `function f(o)
      local before = o.spec.replicas
      o.spec.replicas = 9
      o.status = nil
      table.insert(o.spec.containers, {name = "z"})
      o.metadata.labels.app = nil
      return before
    end`;
    expect(call(sb, write, [d])).toBe(3);
    expect(call(sb, write, [d])).toBe(3);
    expect(call(sb, `function f(o) return {o.spec.replicas, o.status ~= nil, #o.spec.containers, o.metadata.labels.app} end`, [d])).toEqual([3, true, 2, 'x']);
    // A write to an already-read child table, and an array element replaced in place.
    expect(call(sb, `function f(o) local m = o.metadata; m.name = "b"; o.spec.containers[1] = nil; return m.name end`, [d])).toBe('b');
    expect(call(sb, READ, [d])).toEqual(['a', 3, 2, 'i:2', 1]);
    expect(d.metadata.name).toBe('a');
  });

  it('lists every field after a call that read only some (pairs over a reused table)', () => {
    const sb = new LuaSandbox();
    const d = obj();
    expect(call(sb, READ, [d])).toEqual(['a', 3, 2, 'i:2', 1]);
    const keys = `function f(o) local ks = {} for k in pairs(o.spec) do table.insert(ks, k) end table.sort(ks) return ks end`;
    expect(call(sb, keys, [d])).toEqual(['containers', 'replicas']);
    expect(call(sb, keys, [d])).toEqual(['containers', 'replicas']);
    expect(call(sb, READ, [d])).toEqual(['a', 3, 2, 'i:2', 1]);
  });

  it('gives the same object passed twice in one call two separate tables', () => {
    const sb = new LuaSandbox();
    const d = obj();
    expect(call(sb, READ, [d])).toEqual(['a', 3, 2, 'i:2', 1]);
    const two = `function f(a, b) a.spec.replicas = 1 return {a == b, b.spec.replicas} end`;
    expect(call(sb, two, [d, d])).toEqual([false, 3]);
    expect(call(sb, two, [d, d])).toEqual([false, 3]);
    expect(call(sb, READ, [d])).toEqual(['a', 3, 2, 'i:2', 1]);
  });

  it('is not reused after a call that failed midway through a write', () => {
    const sb = new LuaSandbox();
    const d = obj();
    expect(() => call(sb, `function f(o) o.spec.replicas = 0 error("stop") end`, [d])).toThrow(/stop/);
    expect(call(sb, READ, [d])).toEqual(['a', 3, 2, 'i:2', 1]);
  });
});
