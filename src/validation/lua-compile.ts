/**
 * The Lua compile check RIC validation uses: the interpreter's sandbox, which parses with Lua 5.1's
 * grammar and reports errors in gopher-lua's words, as Karmada's webhook does. Nothing is run.
 */
import { LuaSandbox } from '../lua/sandbox.js';
import type { LuaCompile } from './ric.js';

// One sandbox for the process: its compile cache is keyed by script text, so re-checking a RIC is cheap.
let sandbox: LuaSandbox | undefined;

export const luaCompile: LuaCompile = (script) => (sandbox ??= new LuaSandbox()).compile(script) ?? undefined;
