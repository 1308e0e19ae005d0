import { describe, expect, it } from 'vitest';
import { LuaSandbox, LuaScriptError } from '../../src/lua/sandbox.js';
import { luaError, runLua } from './helpers.js';

const sb = new LuaSandbox();
const fast = new LuaSandbox({ budgetMs: 150, memoryLimitBytes: 64 * 1024 * 1024 });

describe('LuaSandbox basics', () => {
  it('calls the named global function with lazily converted arguments', () => {
    const obj = { metadata: { name: 'x' }, spec: { replicas: 3 } };
    expect(runLua(sb, 'function f(o) return o.metadata.name .. o.spec.replicas end', 'f', [obj])).toBe('x3');
  });

  it('reports a missing or non-function entry point as Karmada does', () => {
    expect(luaError(sb, 'function g() end', 'f')).toBe('not found function f');
    expect(luaError(sb, 'f = {}', 'f')).toBe('f is not a function: table');
  });

  it('reports runtime errors with gopher-lua wording and the line', () => {
    expect(luaError(sb, 'function f(o)\n  return o.status.phase\nend', 'f', [{}])).toBe("<string>:2: attempt to index a non-table object(nil) with key 'phase'");
    expect(luaError(sb, 'function f() return 1 + nil end')).toBe('<string>:1: cannot perform add operation between number and nil');
    expect(luaError(sb, 'function f() return "a" .. {} end')).toBe('<string>:1: cannot perform concat operation between string and table');
    expect(luaError(sb, 'function f() return 1 < "x" end')).toBe('<string>:1: attempt to compare number with string');
    expect(luaError(sb, 'function f() local x; x() end')).toBe('<string>:1: attempt to call a non-function object');
    expect(luaError(sb, 'function f() return #nil end')).toMatch(/__len undefined|syntax error/);
    expect(luaError(sb, 'function f() error("boom") end')).toBe('<string>:1: boom');
    expect(luaError(sb, 'function f() error({}) end')).toMatch(/^table: /);
    expect(luaError(sb, 'function f() assert(false, "nope") end')).toBe('<string>:1: nope');
  });

  it('reports compile errors in gopher-lua form', () => {
    const e = luaError(sb, 'function f( return 1 end');
    expect(e).toBe("<string> line:1(column:18) near 'return':   syntax error\n");
    expect(sb.compile('function f() return 1 // 2 end')).toBe("<string> line:1(column:24) near '//':   syntax error\n");
    expect(sb.compile('function f()')).toBe('<string> at EOF:   syntax error\n');
    expect(sb.compile('function f() return 1 end')).toBeNull();
  });

  it('marks failures with their kind', () => {
    try {
      runLua(fast, 'function f() while true do end end');
    } catch (e) {
      expect(e).toBeInstanceOf(LuaScriptError);
      expect((e as LuaScriptError).kind).toBe('timeout');
    }
  });
});

describe('isolation', () => {
  it('does not leak globals between calls or scripts', () => {
    expect(runLua(sb, 'function f() LEAK = 1 return 1 end')).toBe(1);
    expect(runLua(sb, 'function f() return LEAK end')).toBeNull();
    expect(runLua(sb, 'function f() return type(f) end')).toBe('function');
    expect(runLua(sb, 'function g() return type(f) end', 'g')).toBe('nil');
  });

  it('does not let a script change the libraries for anyone else', () => {
    expect(runLua(sb, 'function f() string.lower = nil; table.insert = nil; math.pi = 3; return 1 end')).toBe(1);
    expect(runLua(sb, 'function f() return string.lower("AB") .. math.pi end')).toBe('ab3.141592653589793');
    expect(runLua(sb, 'function f() local k = require("kube"); k.resourceAdd = nil; return 1 end')).toBe(1);
    expect(runLua(sb, 'function f() return require("kube").resourceAdd("1", "2") end')).toBe('3');
    expect(runLua(sb, 'function f() _G.x = 1; package.loaded.kube = nil; return 1 end')).toBe(1);
    expect(runLua(sb, 'function f() return tostring(x) .. type(require("kube")) end')).toBe('niltable');
  });

  it('exposes no host access', () => {
    for (const name of ['io', 'debug', 'coroutine', 'utf8']) expect(runLua(sb, `function f() return ${name} == nil end`)).toBe(true);
    expect(runLua(sb, 'function f() return os.execute == nil and os.getenv == nil and os.exit == nil and os.remove == nil end')).toBe(true);
    expect(runLua(sb, 'function f() return table.unpack == nil and table.pack == nil and math.type == nil end')).toBe(true);
    expect(luaError(sb, 'function f() return require("io") end')).toBe("<string>:1: module io not found:\n\tno field package.preload['io'], ");
    for (const name of ['collectgarbage', 'dofile', 'getfenv', 'getmetatable', 'load', 'loadfile', 'loadstring', 'rawequal', 'rawget', 'rawset', 'setfenv', 'setmetatable', 'module', 'newproxy']) {
      expect(luaError(sb, `function f() return ${name}() end`)).toBe(`<string>:1: call function ${name} is not supported in karmada customized resourceinterpreter.`);
    }
    expect(luaError(sb, 'function f() return package.loadlib("x", "y") end')).toBe('<string>:1: loadlib is not supported');
  });

  it('keeps print away from stdout', () => {
    const lines: string[] = [];
    const withPrint = new LuaSandbox({ print: (l) => lines.push(l) });
    expect(runLua(withPrint, 'function f() print("a", 1, 2.5, nil) return true end')).toBe(true);
    expect(lines).toEqual(['a\t1\t2.5\tnil']);
  });
});

describe('budgets (hostile scripts)', () => {
  const hostile: [string, string, RegExp][] = [
    ['infinite loop', 'function f() while true do end end', /^Test: script exceeded its 150ms budget$/],
    ['pcall cannot swallow the timeout', 'function f() while true do pcall(function() while true do end end) end end', /^Test: script exceeded its 150ms budget$/],
    ['xpcall cannot swallow the timeout', 'function f() while true do xpcall(function() while true do end end, print) end end', /^Test: script exceeded its 150ms budget$/],
    ['string doubling', 'function f() local s = "x" while true do s = s .. s end end', /^Test: script exceeded its memory limit|budget/],
    ['string flood', 'function f() local s = string.format("%099999d", 1) local t = {} for i = 1, 1e9 do t[i] = s .. i end end', /^Test: script exceeded its (memory limit|150ms budget)/],
    ['table growth', 'function f() local t = {} local i = 0 while true do i = i + 1 t[i] = {i} end end', /^Test: script exceeded its (memory limit|150ms budget)/],
    ['unbounded recursion', 'function f() local function r(n) return r(n + 1) + 1 end return r(1) end', /^<string>:1: stack overflow$/],
    ['pathological pattern', 'function f() local s = "a" for i = 1, 15 do s = s .. s end return string.find(s .. "b", "a*a*a*a*a*a*a*c") end', /^Test: script exceeded its 150ms budget$/],
    ['gmatch pattern', 'function f() local s = "a" for i = 1, 15 do s = s .. s end for x in string.gmatch(s, "a*a*a*a*a*a*b") do end end', /^Test: script exceeded its 150ms budget$/],
    ['huge result', 'function f() local t = {} for i = 1, 1e7 do t[i] = i end return t end', /^Test: script exceeded its (memory limit|150ms budget)/],
  ];
  it.each(hostile)('%s is contained within the budget', (_name, script, expected) => {
    // The budget error is the proof it was stopped; how fast is measured in bench/lua-containment.bench.ts.
    expect(luaError(fast, script)).toMatch(expected);
    // The state keeps serving afterwards.
    expect(runLua(fast, 'function f(o) return o.n + 1 end', 'f', [{ n: 41 }])).toBe(42);
  });

  it('a string argument over 1,000,000 bytes is refused', () => {
    expect(luaError(sb, 'function f() local s = "a" for i = 1, 20 do s = s .. s end return #s, string.upper(s) end')).toBe(
      'string length 1048576 exceeds the maximum allowed input string length 1000000 in Karmada lua string lib, please check your lua script.',
    );
  });
});

describe('compile cache', () => {
  it('compiles a script once and reuses it', () => {
    const s = new LuaSandbox({ maxCachedScripts: 2 });
    for (let i = 0; i < 50; i++) expect(runLua(s, `function f() return ${i % 3} end`)).toBe(i % 3);
  });
});

describe('memory held outside the JS heap', () => {
  it('counts large strings built by library functions', () => {
    const s = new LuaSandbox({ budgetMs: 5000, memoryLimitBytes: 32 * 1024 * 1024 });
    expect(luaError(s, 'function f() local t = {} for i = 1, 1e9 do t[i] = string.format("%0999999d", i) end end')).toMatch(/^Test: script exceeded its memory limit/);
    expect(runLua(s, 'function f() return 1 end')).toBe(1);
  });
});
