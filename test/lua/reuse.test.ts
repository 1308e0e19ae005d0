import { describe, expect, it } from 'vitest';
import { LuaSandbox } from '../../src/lua/sandbox.js';
import { runLua } from './helpers.js';

// Karmada runs a script's whole chunk before every call. karmada-lite runs it once when that cannot be
// told apart; these scripts check that every kind of top-level state still starts afresh on each call.
describe('each call sees a freshly run chunk', () => {
  const sb = new LuaSandbox();
  const twice = (script: string) => [runLua(sb, script), runLua(sb, script)];

  it.each([
    ['a top-level table', 'local t = {} function f() t.n = (t.n or 0) + 1 return t.n end'],
    ['a top-level counter', 'local count = 0 function f() count = count + 1 return count end'],
    ['a global counter', 'function f() N = (N or 0) + 1 return N end'],
    ['a global set at the top level', 'N = 0 function f() N = N + 1 return N end'],
    ['a redefined entry function', 'function f() f = function() return 99 end return 1 end'],
    ['a library table changed at call time', 'function f() string.n = (string.n or 0) + 1 return string.n end'],
    ['_G used as a table', 'function f() _G.n = (_G.n or 0) + 1 return _G.n end'],
  ])('%s', (_name, script) => {
    expect(twice(script)).toEqual([1, 1]);
  });

  it('re-evaluates top-level calls on every call', () => {
    let now = 1_000_000;
    const clocked = new LuaSandbox({ nowMs: () => now });
    const script = 'local started = os.time() function f() return started end';
    expect(runLua(clocked, script)).toBe(1000);
    now = 2_000_000;
    expect(runLua(clocked, script)).toBe(2000);
  });

  it('keeps require("kube") at the top level working', () => {
    expect(twice('local kube = require("kube") function f() return kube.resourceAdd("1", "1") end')).toEqual(['2', '2']);
  });

  it('reports a top-level runtime error on every call', () => {
    const script = 'local x = nil .. "a" function f() return 1 end';
    for (let i = 0; i < 2; i++) expect(() => runLua(sb, script)).toThrow('<string>:1: cannot perform concat operation between nil and string');
  });
});
