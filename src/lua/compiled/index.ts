/** What the sandbox takes of the compiling path, in one module it loads on demand (sandbox.ts loadCompiledLua). */
export { CompiledEngine, EntryError } from './engine.js';
export { LuaError } from './runtime.js';
export { fromJs } from './table.js';
