import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeRequirements } from '../../src/interpreter/decode.js';
import { luaToJs } from '../../src/lua/convert.js';
import { lauxlib, lua, MAX_STRING_BYTES, to_luastring, type LuaState } from '../../src/lua/fengari.js';
import { LuaSandbox, LuaScriptError, type LuaFailureKind } from '../../src/lua/sandbox.js';
import { luaError, runLua } from './helpers.js';
import { scaled } from '../time-scale.js';

const root = join(import.meta.dirname, '..', '..');

/** A sandbox whose print goes to `lines`, with a short budget. */
function recording(opts: { budgetMs?: number; memoryLimitBytes?: number } = {}) {
  const lines: string[] = [];
  const sb = new LuaSandbox({ budgetMs: 150, memoryLimitBytes: 64 * 1024 * 1024, ...opts, print: (l) => lines.push(l) });
  return { sb, lines };
}

/** The failure of a call: its kind and message (throws if the call succeeded). */
function failure(sb: LuaSandbox, script: string, pushArgs: ((L: LuaState) => number) | unknown[] = []): { kind: LuaFailureKind; message: string } {
  try {
    sb.run(script, 'f', 'Test', pushArgs, 1, (L) => luaToJs(L, 1));
  } catch (e) {
    if (e instanceof LuaScriptError) return { kind: e.kind, message: e.message };
    throw e;
  }
  throw new Error('expected the script to fail');
}

const METAMETHODS = ['__index', '__newindex', '__call', '__concat', '__eq', '__lt', '__le', '__tostring', '__len', '__add'];

/**
 * Pushes a table whose every metamethod is the Lua chunk `body`. Scripts cannot set metatables
 * (setmetatable is one of Karmada's disabled functions), so the host builds it: the budget must hold
 * for metamethods all the same.
 */
function hostileTable(body: string) {
  return (L: LuaState): number => {
    lua.lua_createtable(L, 0, 0);
    lua.lua_createtable(L, 0, METAMETHODS.length);
    for (const name of METAMETHODS) {
      lua.lua_pushstring(L, to_luastring(name));
      expect(lauxlib.luaL_loadbuffer(L, to_luastring(body), null, to_luastring('=meta'))).toBe(lua.LUA_OK);
      lua.lua_rawset(L, -3);
    }
    lua.lua_setmetatable(L, -2);
    return 1;
  };
}

describe('an abort ends the call: no message handler or pcall gets control again', () => {
  it('a message handler does not run after a timeout', () => {
    const { sb, lines } = recording();
    expect(failure(sb, 'function f() return xpcall(function() while true do end end, function(m) print("handler") return m end) end')).toEqual({
      kind: 'timeout',
      message: 'Test: script exceeded its 150ms budget',
    });
    expect(lines).toEqual([]);
  });

  it('a message handler that runs long is stopped by the budget, and is not run again', () => {
    const { sb, lines } = recording();
    const script = `function f()
      return xpcall(function() error("x") end, function(m)
        print("enter")
        local n = 0
        for i = 1, 3e7 do n = n + i end
        print("leave")
        return m
      end)
    end`;
    expect(failure(sb, script).kind).toBe('timeout');
    expect(lines).toEqual(['enter']);
  });

  it('a message handler that allocates is stopped by the memory limit, and is not run again', () => {
    const { sb, lines } = recording({ budgetMs: 20_000, memoryLimitBytes: 32 * 1024 * 1024 });
    const script = `function f()
      return xpcall(function() error("x") end, function(m)
        print("enter")
        local t = {}
        for i = 1, 3e6 do t[i] = {i} end
        print("leave")
        return m
      end)
    end`;
    const r = failure(sb, script);
    expect(r.kind).toBe('memory');
    expect(r.message).toMatch(/^Test: script exceeded its memory limit/);
    expect(lines).toEqual(['enter']);
  });

  it('nested handlers and pcall inside a handler cannot catch the abort', () => {
    const { sb, lines } = recording();
    const script = `function f()
      return xpcall(function()
        return xpcall(function() error("inner") end, function(m)
          print("inner handler")
          while true do pcall(function() while true do end end) end
        end)
      end, function(m) print("outer handler") return m end)
    end`;
    expect(failure(sb, script).kind).toBe('timeout');
    expect(lines).toEqual(['inner handler']);
  });

  it('a stack overflow raised by the hook leaves the handler under the hook', () => {
    // fengari turns hooks off inside a hook; the handler of an error the hook raises used to run
    // unchecked. Now its own instructions are checked too: still too deep, it errs again.
    const { sb } = recording({ budgetMs: 5000 });
    const script = `function f()
      return {xpcall(function() local function r() return 1 + r() end return r() end, function(m)
        local n = 0
        for i = 1, 1e8 do n = n + i end
        return "handled"
      end)}
    end`;
    expect(runLua(sb, script)).toEqual([false, 'error in error handling']);
    // A handler that returns at once still gets the error.
    expect(runLua(sb, 'function f() return {xpcall(function() local function r() return 1 + r() end return r() end, function(m) return "handled: " .. m end)} end')).toEqual([
      false,
      'handled: <string>:1: stack overflow',
    ]);
  });

  it('the state keeps serving after every kind of abort', () => {
    const { sb } = recording();
    expect(failure(sb, 'function f() return xpcall(function() error("x") end, function() local n = 0 for i = 1, 1e8 do n = n + i end end) end').kind).toBe('timeout');
    expect(runLua(sb, 'function f(o) return {pcall(error, "e")}, o.n end', 'f', [{ n: 1 }])).toEqual([false, 'e']);
    expect(runLua(sb, 'function f() return {xpcall(function() error("x", 0) end, function(m) return m .. "!" end)} end')).toEqual([false, 'x!']);
  });
});

describe('every path that runs Lua code is under the budget', () => {
  const { sb, lines } = recording();

  it.each([
    ['__index', 'return o.x'],
    ['__newindex', 'o.x = 1'],
    ['__call', 'return o()'],
    ['__concat', 'return o .. "x"'],
    ['__eq', 'return o == {}'],
    ['__lt (table.sort)', 'table.sort({o, o, o})'],
    ['__le', 'return o <= o'],
    ['__tostring (string.format)', 'return string.format("%s", o)'],
    ['__tostring (tostring)', 'return tostring(o)'],
    ['__len', 'return #o'],
    ['__add', 'return o + 1'],
    ['__call (generic for)', 'for x in o do end'],
  ])('%s, inside an xpcall whose handler must not run', (_name, trigger) => {
    lines.length = 0;
    const script = `function f(o) return xpcall(function() ${trigger} end, function(m) print("handler") return m end) end`;
    expect(failure(sb, script, hostileTable('while true do end'))).toEqual({ kind: 'timeout', message: 'Test: script exceeded its 150ms budget' });
    expect(lines).toEqual([]);
  });

  it('a metamethod that allocates is stopped by the memory limit', () => {
    const s = new LuaSandbox({ budgetMs: 20_000, memoryLimitBytes: 32 * 1024 * 1024 });
    expect(failure(s, 'function f(o) return o.x end', hostileTable('local t = {} local i = 0 while true do i = i + 1 t[i] = {i} end')).kind).toBe('memory');
  });

  it.each([
    ['a sort comparator', 'table.sort({3, 2, 1}, function(a, b) while true do end end)'],
    ['an iterator function', 'for x in function() while true do end end do end'],
    ['pcall in a loop', 'while true do pcall(error, "x") end'],
    ['a gmatch loop', 'local s = string.format("%099999d", 1) while true do for x in string.gmatch(s, "0") do end end'],
    ['table.insert at the front of a long table', 'local t = {} for i = 1, 100000 do t[i] = i end while true do table.insert(t, 1, 0) end'],
    ['table.sort of a long table', 'local t = {} for i = 1, 100000 do t[i] = -i end while true do table.sort(t, function(a, b) return a > b end) table.sort(t) end'],
    ['comparisons of long strings', 'local s = string.format("%0999999d", 1) local a, b = s .. "x", s .. "y" while true do local e = a == b end'],
  ])('%s, inside an xpcall whose handler must not run', (_name, body) => {
    lines.length = 0;
    expect(failure(sb, `function f() return xpcall(function() ${body} end, function(m) print("handler") return m end) end`).kind).toBe('timeout');
    expect(lines).toEqual([]);
  });
});

describe('strings are checked before they are allocated', () => {
  /** Runs `fn` and returns the largest Uint8Array any code asked for meanwhile (fengari builds strings as such). */
  function largestBuffer(fn: () => void): number {
    const Original = globalThis.Uint8Array;
    let largest = 0;
    // A proxy keeps `instanceof Uint8Array` true for arrays made before and after.
    globalThis.Uint8Array = new Proxy(Original, {
      construct(target, args, newTarget) {
        if (typeof args[0] === 'number' && args[0] > largest) largest = args[0];
        return Reflect.construct(target, args, newTarget) as object;
      },
    });
    try {
      fn();
    } finally {
      globalThis.Uint8Array = Original;
    }
    return largest;
  }

  const sb = new LuaSandbox({ budgetMs: 20_000 });

  it('table.concat refuses a result over the limit before building it', () => {
    let message = '';
    const largest = largestBuffer(() => {
      message = luaError(sb, 'function f() local s = string.format("%0999999d", 1) local t = {} for i = 1, 200 do t[i] = s end return #table.concat(t) end');
    });
    const size = Number(/string of (\d+) bytes/.exec(message)?.[1]);
    expect(message).toMatch(/^Test: script exceeded its memory limit \(string of \d+ bytes exceeds the 67108864 byte limit\)$/);
    // Refused at the first piece past the limit, not after joining all 200.
    expect(size).toBeLessThanOrEqual(MAX_STRING_BYTES + 1_000_000);
    expect(largest).toBeLessThan(MAX_STRING_BYTES);
  });

  it('s = s .. s is refused before the string that passes the limit is allocated', () => {
    let message = '';
    const largest = largestBuffer(() => {
      message = luaError(sb, 'function f() local s = "x" while true do s = s .. s end end');
    });
    expect(message).toBe('Test: script exceeded its memory limit (string of 134217728 bytes exceeds the 67108864 byte limit)');
    expect(largest).toBeLessThanOrEqual(MAX_STRING_BYTES);
  });

  it('a concatenation of many operands is checked as a whole', () => {
    let message = '';
    const largest = largestBuffer(() => {
      message = luaError(sb, 'function f() local s = string.format("%0999999d", 1) for i = 1, 4 do s = s .. s end return #(s .. s .. s .. s .. s .. s .. s .. s) end');
    });
    expect(message).toBe('Test: script exceeded its memory limit (string of 127999872 bytes exceeds the 67108864 byte limit)');
    expect(largest).toBeLessThan(MAX_STRING_BYTES);
  });

  it('strings built by concatenation count against the call memory limit before they exist', () => {
    const small = new LuaSandbox({ budgetMs: 20_000, memoryLimitBytes: 8 * 1024 * 1024 });
    const largest = largestBuffer(() => {
      expect(luaError(small, 'function f() local s = "x" while true do s = s .. s end end')).toBe('Test: script exceeded its memory limit (script built more than 8388608 bytes of strings)');
    });
    expect(largest).toBeLessThanOrEqual(4 * 1024 * 1024);
  });

  it('a long string as a table key is hashed in linear time and counted', () => {
    const s = new LuaSandbox({ budgetMs: 20_000 });
    const script = 'function f() local s = string.format("%0999999d", 1) for i = 1, 3 do s = s .. s end local t = {} t[s] = 1 t[s .. "x"] = 2 return t[s] + t[s .. "x"] end';
    expect(runLua(s, script)).toBe(3);
  });
});

describe('globals and library tables behave as Lua tables', () => {
  const sb = new LuaSandbox();

  it('assigning nil to a global hides it for the rest of the call', () => {
    expect(runLua(sb, 'function f() error = nil return type(error) end')).toBe('nil');
    expect(runLua(sb, 'function f() type = nil return tostring(type) end')).toBe('nil');
    expect(runLua(sb, 'function f() local t = tostring tostring = nil local r = t(tostring) tostring = t return r .. type(tostring) end')).toBe('nilfunction');
    expect(runLua(sb, 'function f() _G.pairs = nil return pairs == nil end')).toBe(true);
  });

  it('assigning nil to a library function hides it, method calls included', () => {
    expect(runLua(sb, 'function f() string.format = nil return tostring(string.format) end')).toBe('nil');
    expect(runLua(sb, 'function f() string.upper = nil return {pcall(function() return ("x"):upper() end)} end')).toEqual([false, '<string>:1: attempt to call a non-function object']);
    expect(runLua(sb, 'function f() os.time = nil math.floor = nil table.insert = nil return {os.time == nil, math.floor == nil, table.insert == nil} end')).toEqual([true, true, true]);
  });

  it('a global that shadows a library name holds what the script put there', () => {
    // As in a well-known third-party interpreter: `error = currentStatus.error`.
    const script = 'function f(o) error = o.status.error local s = {} s.error = error return s end';
    expect(runLua(sb, script, 'f', [{ status: { error: 'ImagePullBackOff' } }])).toEqual({ error: 'ImagePullBackOff' });
    expect(runLua(sb, script, 'f', [{ status: {} }])).toEqual([]);
  });

  it('pairs and next see the real entries, shadows applied', () => {
    const names = (expr: string) => runLua(sb, `function f() local t = {} for k in pairs(${expr}) do t[#t + 1] = k end table.sort(t) return t end`);
    expect(names('os')).toEqual(['date', 'time']);
    expect(names('string')).toEqual(['byte', 'char', 'dump', 'find', 'format', 'gfind', 'gmatch', 'gsub', 'len', 'lower', 'match', 'rep', 'reverse', 'sub', 'upper']);
    expect(names('math')).toContain('floor');
    const globals = names('_G') as string[];
    for (const n of ['_G', '_VERSION', 'error', 'pairs', 'string', 'table', 'math', 'os', 'package', 'require', 'setmetatable', 'f']) expect(globals).toContain(n);
    expect(runLua(sb, 'function f() return next(_G) ~= nil and next(string) ~= nil end')).toBe(true);
    expect(runLua(sb, 'function f() error = nil X = 1 local seen = {} for k, v in pairs(_G) do seen[k] = type(v) end return {seen.error == nil, seen.X, seen.type} end')).toEqual([true, 'number', 'function']);
    expect(runLua(sb, 'function f() string.format = nil string.extra = 1 local n, extra = 0 for k, v in pairs(string) do n = n + 1 if k == "extra" then extra = v end end return {n, extra} end')).toEqual([15, 1]);
  });

  it('array-like library tables have their length', () => {
    expect(runLua(sb, 'function f() return {#package.loaders, type(package.loaders[1]), type(unpack(package.loaders))} end')).toEqual([1, 'function', 'function']);
  });

  it('nothing a call writes is visible to the next call or another script', () => {
    const vandal = `function f()
      for k in pairs(_G) do end
      error = nil type = nil _G.pairs = nil X = 1
      string.format = nil string.extra = 1 os.time = nil math.pi = 3 table.insert = nil
      package.loaded.string = nil package.path = "x" require("kube").resourceAdd = nil
      return 1
    end`;
    const check = `function f()
      return {type(error), type(type), type(pairs), X == nil, type(string.format), string.extra == nil, type(os.time), math.pi,
        type(table.insert), package.loaded.string == string, package.path, type(require("kube").resourceAdd), ("%d"):format(7)}
    end`;
    const clean = ['function', 'function', 'function', true, 'function', true, 'function', Math.PI, 'function', true, '', 'function', '7'];
    expect(runLua(sb, check)).toEqual(clean);
    for (let i = 0; i < 3; i++) {
      expect(runLua(sb, vandal)).toBe(1);
      expect(runLua(sb, check)).toEqual(clean);
    }
    // The same for a chunk that runs once and is reused (no top-level state), and one that runs per call.
    const reused = 'function f() local r = type(error) error = nil return r end';
    const perCall = 'local t = {} function f() local r = type(error) error = nil return r end';
    for (let i = 0; i < 3; i++) {
      expect(runLua(sb, reused)).toBe('function');
      expect(runLua(sb, perCall)).toBe('function');
    }
    expect(runLua(sb, check)).toEqual(clean);
  });

  it('a reused chunk sees its own globals and the library, and gets them back after each call', () => {
    const script = 'function helper() return 41 end function f() local r = helper() + 1 helper = nil local n = 0 for k in pairs(_G) do n = n + 1 end return {r, helper == nil, n > 30} end';
    for (let i = 0; i < 3; i++) expect(runLua(sb, script)).toEqual([42, true, true]);
  });
});

describe('results are built without prototypes', () => {
  const sb = new LuaSandbox();

  it('a __proto__ key is an ordinary own member', () => {
    const r = runLua(sb, 'function f() return {__proto__ = {polluted = true}, a = 1} end') as Record<string, unknown>;
    expect(Object.getPrototypeOf(r)).toBe(Object.prototype);
    expect((r as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(r).sort()).toEqual(['__proto__', 'a']);
    expect(JSON.stringify(r)).toBe('{"__proto__":{"polluted":true},"a":1}');
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('an argument with a __proto__ member keeps it through the empty-table repair', () => {
    const input = JSON.parse('{"spec":{"__proto__":{"x":1},"y":2}}') as Record<string, unknown>;
    const r = sb.run('function f(o) return o end', 'f', 'Test', [input], 1, (L) => luaToJs(L, 1, { repair: { pos: null, structTarget: true } })) as { spec: Record<string, unknown> };
    expect(Object.getPrototypeOf(r.spec)).toBe(Object.prototype);
    expect(JSON.stringify(r)).toBe('{"spec":{"__proto__":{"x":1},"y":2}}');
  });

  it('typed decoding keeps a __proto__ key as a map key', () => {
    const req = decodeRequirements(JSON.parse('{"resourceRequest":{"__proto__":"1","cpu":"2"},"nodeClaim":{"nodeSelector":{"__proto__":"a"}}}'));
    expect(JSON.stringify(req)).toBe('{"nodeClaim":{"nodeSelector":{"__proto__":"a"}},"resourceRequest":{"__proto__":"1","cpu":"2"}}');
  });
});

describe('errors carry their real text', () => {
  const sb = new LuaSandbox();

  it('too many results from string.byte', () => {
    expect(luaError(sb, 'function f() local s = string.format("%0999999d", 1) return select("#", string.byte(s, 1, -1)) end')).toBe('<string>:1: string slice too long');
    expect(runLua(sb, 'function f() local s = string.format("%05000d", 1) return select("#", string.byte(s, 1, -1)) end')).toBe(5000);
  });

  it('a library function that overfills the stack fails with "stack overflow", caught or not', () => {
    const pushFlood = (L: LuaState) => {
      lua.lua_pushcfunction(L, (L: LuaState) => {
        for (let i = 0; i < 100; i++) lua.lua_pushnumber(L, i);
        return 100;
      });
      return 1;
    };
    expect(failure(sb, 'function f(flood) return flood() end', pushFlood)).toEqual({ kind: 'runtime', message: 'stack overflow' });
    const caught = sb.run('function f(flood) return {pcall(flood)} end', 'f', 'Test', pushFlood, 1, (L) => luaToJs(L, 1));
    expect(caught).toEqual([false, 'stack overflow']);
  });

  it('a JS error in a library function becomes a Lua error with its message, through the handler', () => {
    const pushThrower = (L: LuaState) => {
      lua.lua_pushcfunction(L, () => {
        throw new Error('broken library');
      });
      return 1;
    };
    const r = sb.run('function f(g) return {xpcall(g, function(m) return "handled: " .. m end)} end', 'f', 'Test', pushThrower, 1, (L) => luaToJs(L, 1));
    expect(r).toEqual([false, 'handled: broken library']);
  });

  it('a result nested too deeply to encode', () => {
    const patient = new LuaSandbox({ budgetMs: 60_000 });
    expect(failure(patient, 'function f() local t = {} for i = 1, 100000 do t = {t} end return t end')).toEqual({ kind: 'runtime', message: 'stack overflow' });
  });
});

describe('interpret', () => {
  it('returns with the budget error for a RIC whose xpcall handler never returns', () => {
    const fixtures = join(import.meta.dirname, 'fixtures');
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(root, 'src/cli/main.ts'), 'interpret', '-f', join(fixtures, 'xpcall-loop-ric.yaml'), '--operation', 'InterpretHealth', '--observed-file', join(fixtures, 'deployment.yaml')],
      { cwd: root, encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' },
    );
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe('Execute InterpretHealth error: InterpretHealth: script exceeded its 1s budget');
  }, scaled(70_000));
});
