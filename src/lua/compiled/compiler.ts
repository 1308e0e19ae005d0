/**
 * Lua 5.1 source to JavaScript: a script is parsed once (luaparse), checked against the subset the
 * compiled path takes, and turned into the source of one JS function that runs the chunk against a fresh
 * global table. A script outside the subset gets the reason back and runs on fengari; nothing in the
 * subset behaves differently from the fengari path (the differential test holds it to that).
 *
 * Generated code: Lua locals are JS `let`s with unique names; a function returns its single value, a
 * `Ret` of several, or NONE; every loop iteration and function entry counts down the budget counter
 * (`R.c`), whose end runs the sandbox's clock and heap checks; errors carry fengari's `<string>:N:`.
 */
import luaparse from 'luaparse';
import type * as ast from 'luaparse';
import { lua51Violation } from '../syntax.js';

export class Unsupported extends Error {}

/** Globals the compiled path does not take: the script runs on fengari. */
const UNSUPPORTED_GLOBALS = new Set(['_G', '_ENV', 'getfenv', 'setfenv', 'load', 'loadstring', 'loadfile', 'dofile', 'xpcall', 'coroutine', 'debug', 'package', 'module', 'newproxy']);

export interface CompileResult {
  /** The chunk's JS source (a function body taking the runtime's helpers). */
  source: string;
}

interface FnState {
  temps: number;
  /** The Lua name of the function (for its own tail calls). */
  name: string | null;
}

/** Compiles `script`, or throws Unsupported with the reason the fengari path must run it. */
export function compileLua(script: string, baseNames: ReadonlySet<string>): CompileResult {
  if (lua51Violation(script)) throw new Unsupported('not Lua 5.1 as gopher-lua reads it');
  // fengari reads the script as its UTF-8 bytes: strings are byte strings (latin1 code units here).
  const bytes = Buffer.from(script, 'utf8').toString('latin1');
  let chunk: ast.Chunk;
  try {
    chunk = luaparse.parse(bytes, { luaVersion: '5.1', locations: true, ranges: true, encodingMode: 'pseudo-latin1', comments: false, scope: false });
  } catch (e) {
    throw new Unsupported(`parse: ${(e as Error).message}`);
  }
  return { source: new Codegen(bytes, baseNames).chunk(chunk) };
}

class Codegen {
  private uid = 0;
  private scopes: Map<string, string>[] = [];
  private fn: FnState = { temps: 0, name: '<chunk>' };
  private loopDepth = 0;

  constructor(
    private readonly src: string,
    private readonly baseNames: ReadonlySet<string>,
  ) {}

  chunk(c: ast.Chunk): string {
    this.scopes.push(new Map());
    const body = this.block(c.body);
    this.scopes.pop();
    return `return function chunk(G) {\n${this.tempDecl()}${body}\n};`;
  }

  private tempDecl(): string {
    if (this.fn.temps === 0) return '';
    const names: string[] = [];
    for (let i = 0; i < this.fn.temps; i++) names.push(`$${i}`);
    return `let ${names.join(', ')};\n`;
  }

  private temp(): string {
    return `$${this.fn.temps++}`;
  }

  private declare(name: string): string {
    const js = `L_${name}_${this.uid++}`;
    this.scopes[this.scopes.length - 1]!.set(name, js);
    return js;
  }

  private lookup(name: string): string | null {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const js = this.scopes[i]!.get(name);
      if (js !== undefined) return js;
    }
    return null;
  }

  private block(stmts: ast.Statement[]): string {
    this.scopes.push(new Map());
    const out = stmts.map((s) => this.statement(s)).join('\n');
    this.scopes.pop();
    return out;
  }

  private line(n: ast.Node): number {
    return n.loc?.start.line ?? 0;
  }

  private statement(s: ast.Statement): string {
    switch (s.type) {
      case 'LocalStatement':
        return this.local(s);
      case 'AssignmentStatement':
        return this.assign(s);
      case 'CallStatement':
        return `${this.call(s.expression as ast.CallExpression | ast.StringCallExpression | ast.TableCallExpression, true)};`;
      case 'IfStatement': {
        let out = '';
        for (const c of s.clauses) {
          if (c.type === 'IfClause') out += `if (${this.cond(c.condition)}) {\n${this.block(c.body)}\n}`;
          else if (c.type === 'ElseifClause') out += ` else if (${this.cond(c.condition)}) {\n${this.block(c.body)}\n}`;
          else out += ` else {\n${this.block(c.body)}\n}`;
        }
        return out;
      }
      case 'WhileStatement': {
        this.loopDepth++;
        const body = this.block(s.body);
        this.loopDepth--;
        return `while (${this.cond(s.condition)}) {\nif (--R.c < 0) R.tick();\n${body}\n}`;
      }
      case 'RepeatStatement': {
        this.loopDepth++;
        this.scopes.push(new Map());
        const body = s.body.map((x) => this.statement(x)).join('\n');
        const cond = this.cond(s.condition);
        this.scopes.pop();
        this.loopDepth--;
        return `for (;;) {\nif (--R.c < 0) R.tick();\n${body}\nif (${cond}) break;\n}`;
      }
      case 'DoStatement':
        return `{\n${this.block(s.body)}\n}`;
      case 'ForNumericStatement': {
        const l = this.line(s);
        const st = this.temp();
        const lim = this.temp();
        const stp = this.temp();
        const i = this.temp();
        const head =
          `${st} = R.forNum(${this.expr(s.start)}, 'initial value', ${l}); ${lim} = R.forNum(${this.expr(s.end)}, 'limit', ${l}); ` +
          `${stp} = ${s.step ? `R.forNum(${this.expr(s.step)}, 'step', ${l})` : '1'};`;
        this.loopDepth++;
        this.scopes.push(new Map());
        const v = this.declare(s.variable.name);
        const body = this.block(s.body);
        this.scopes.pop();
        this.loopDepth--;
        // fengari's float loop: the index starts one step back and moves before every test.
        return `${head}\nfor (${i} = ${st} - ${stp}; ${i} += ${stp}, (0 < ${stp} ? ${i} <= ${lim} : ${lim} <= ${i});) {\nif (--R.c < 0) R.tick();\nlet ${v} = ${i};\n${body}\n}`;
      }
      case 'ForGenericStatement': {
        const l = this.line(s);
        const f = this.temp();
        const st = this.temp();
        const ctl = this.temp();
        const r = this.temp();
        const init = this.explist(s.iterators, 3);
        this.loopDepth++;
        this.scopes.push(new Map());
        const vars = s.variables.map((v) => this.declare(v.name));
        const body = this.block(s.body);
        this.scopes.pop();
        this.loopDepth--;
        const assign = vars.map((v, k) => `let ${v} = ${k === 0 ? `(${r} instanceof Ret ? ${r}.v[0] : ${r})` : `(${r} instanceof Ret ? ${r}.v[${k}] : undefined)`};`).join(' ');
        return (
          `[${f}, ${st}, ${ctl}] = ${init};\nfor (;;) {\nif (--R.c < 0) R.tick();\n` +
          `${r} = (${f} === NEXT ? R.nextPair(${st}, ${ctl}) : R.fn(${f}, ${l})(${st}, ${ctl}));\n` +
          `${assign}\nif (${vars[0]} === undefined) break;\n${ctl} = ${vars[0]};\n${body}\n}`
        );
      }
      case 'ReturnStatement':
        return this.ret(s);
      case 'BreakStatement':
        if (this.loopDepth === 0) throw new Unsupported('break outside a loop');
        return 'break;';
      case 'FunctionDeclaration':
        return this.funcDecl(s);
      default:
        throw new Unsupported(`statement ${s.type}`);
    }
  }

  /** `n` values of an expression list as a JS array expression (padded with undefined). */
  private explist(exprs: ast.Expression[], n: number): string {
    if (exprs.length === 0) return `[${new Array(n).fill('undefined').join(', ')}]`;
    const last = exprs[exprs.length - 1]!;
    const parts = exprs.slice(0, -1).map((e) => this.expr(e));
    if (this.isMulti(last, exprs.length > 1 ? rangeOf(exprs[exprs.length - 2]!)[1] : null)) return `R.spread([${parts.join(', ')}], ${this.multi(last)}, ${n})`;
    parts.push(this.expr(last));
    while (parts.length < n) parts.push('undefined');
    return `[${parts.join(', ')}]`;
  }

  private local(s: ast.LocalStatement): string {
    const n = s.variables.length;
    const m = s.init.length;
    const lines: string[] = [];
    const lastMulti = m > 0 && m < n + 1 && m <= n && this.isMulti(s.init[m - 1]!, m > 1 ? rangeOf(s.init[m - 2]!)[1] : null);
    const values: string[] = [];
    let spread: string | null = null;
    for (let i = 0; i < m; i++) {
      const e = s.init[i]!;
      if (i === m - 1 && lastMulti && n > m - 1) {
        spread = this.temp();
        lines.push(`${spread} = all(${this.multi(e)});`);
      } else if (i < n) values.push(this.expr(e));
      else lines.push(`${this.expr(e)};`);
    }
    // Values are computed before the new names come into scope.
    const tmpVals = values.map((v) => {
      if (n === 1) return v;
      const t = this.temp();
      lines.push(`${t} = ${v};`);
      return t;
    });
    const names = s.variables.map((v) => this.declare(v.name));
    names.forEach((js, i) => {
      let v: string;
      if (i < tmpVals.length) v = tmpVals[i]!;
      else if (spread !== null) v = `${spread}[${i - tmpVals.length}]`;
      else v = 'undefined';
      lines.push(`let ${js} = ${v};`);
    });
    return lines.join('\n');
  }

  private assign(s: ast.AssignmentStatement): string {
    if (s.variables.length === 1 && s.init.length === 1) return `${this.store(s.variables[0]!, this.expr(s.init[0]!))};`;
    const lines: string[] = [];
    // Targets' tables and keys first, then the values, then the stores from the last target to the first.
    const targets = s.variables.map((v) => {
      if (v.type === 'Identifier') return { v, obj: null as string | null, key: null as string | null };
      const o = this.temp();
      const k = this.temp();
      lines.push(`${o} = ${this.expr(v.type === 'MemberExpression' ? v.base : v.base)};`);
      lines.push(`${k} = ${v.type === 'MemberExpression' ? JSON.stringify(v.identifier.name) : this.expr(v.index)};`);
      return { v, obj: o, key: k };
    });
    const vals = this.temp();
    lines.push(`${vals} = ${this.explist(s.init, s.variables.length)};`);
    for (let i = targets.length - 1; i >= 0; i--) {
      const t = targets[i]!;
      const val = `${vals}[${i}]`;
      if (t.obj === null) lines.push(`${this.store(t.v, val)};`);
      else lines.push(`R.setindex(${t.obj}, ${t.key}, ${val}, ${this.line(t.v)});`);
    }
    return lines.join('\n');
  }

  private store(target: ast.Expression, value: string): string {
    switch (target.type) {
      case 'Identifier': {
        const js = this.lookup(target.name);
        if (js !== null) return `${js} = ${value}`;
        this.checkGlobal(target.name);
        if (this.baseNames.has(target.name)) throw new Unsupported(`assigns the library global ${target.name}`);
        return `G.set(${JSON.stringify(target.name)}, ${value})`;
      }
      case 'MemberExpression':
        return `R.setindex(${this.expr(target.base)}, ${JSON.stringify(target.identifier.name)}, ${value}, ${this.line(target)})`;
      case 'IndexExpression':
        return `R.setindex(${this.expr(target.base)}, ${this.expr(target.index)}, ${value}, ${this.line(target)})`;
      default:
        throw new Unsupported(`assignment to ${target.type}`);
    }
  }

  private checkGlobal(name: string): void {
    if (UNSUPPORTED_GLOBALS.has(name)) throw new Unsupported(`uses ${name}`);
  }

  private ret(s: ast.ReturnStatement): string {
    const a = s.arguments;
    const inFn = this.fn.name !== '<chunk>';
    const done = inFn ? 'R.d--; ' : '';
    if (a.length === 0) return `{ ${done}return NONE; }`;
    if (a.length === 1) {
      const e = a[0]!;
      if (this.isMulti(e, null)) {
        if (inFn && this.fn.name !== null && e.type === 'CallExpression' && e.base.type === 'Identifier' && e.base.name === this.fn.name) {
          throw new Unsupported('a function tail-calls itself (fengari runs that without growing its stack)');
        }
        const t = this.temp();
        return `{ ${t} = ${this.multi(e)}; ${done}return ${t}; }`;
      }
      const t = this.temp();
      return `{ ${t} = ${this.expr(e)}; ${done}return ${t}; }`;
    }
    const t = this.temp();
    return `{ ${t} = new Ret(${this.explistAll(a)}); ${done}return ${t}; }`;
  }

  /** Every value of an expression list (the last one's all) as a JS array expression. */
  private explistAll(exprs: ast.Expression[], openEnd: number | null = null): string {
    if (exprs.length === 0) return '[]';
    const last = exprs[exprs.length - 1]!;
    const parts = exprs.slice(0, -1).map((e) => this.expr(e));
    if (this.isMulti(last, exprs.length > 1 ? rangeOf(exprs[exprs.length - 2]!)[1] : openEnd)) {
      if (parts.length === 0) return `all(${this.multi(last)})`;
      return `[${parts.join(', ')}, ...all(${this.multi(last)})]`;
    }
    parts.push(this.expr(last));
    return `[${parts.join(', ')}]`;
  }

  private funcDecl(s: ast.FunctionDeclaration): string {
    const id = s.identifier;
    if (s.isLocal) {
      if (!id || id.type !== 'Identifier') throw new Unsupported('local function without a name');
      const js = this.declare(id.name);
      return `let ${js};\n${js} = ${this.func(s, id.name, false)};`;
    }
    if (!id) throw new Unsupported('function statement without a name');
    if (id.type === 'Identifier') return `${this.store(id, this.func(s, id.name, false))};`;
    if (id.type === 'MemberExpression') {
      const method = id.indexer === ':';
      return `R.setindex(${this.expr(id.base)}, ${JSON.stringify(id.identifier.name)}, ${this.func(s, id.identifier.name, method)}, ${this.line(id)});`;
    }
    throw new Unsupported('function name');
  }

  private func(s: ast.FunctionDeclaration, name: string | null, method: boolean): string {
    const outer = this.fn;
    const outerLoop = this.loopDepth;
    this.fn = { temps: 0, name };
    this.loopDepth = 0;
    this.scopes.push(new Map());
    const params: string[] = [];
    if (method) params.push(this.declare('self'));
    for (const p of s.parameters) {
      if (p.type === 'VarargLiteral') throw new Unsupported('varargs');
      params.push(this.declare(p.name));
    }
    const body = this.block(s.body);
    this.scopes.pop();
    const temps = this.tempDecl();
    this.fn = outer;
    this.loopDepth = outerLoop;
    return `function (${params.join(', ')}) {\nR.enter();\n${temps}${body}\nR.d--; return NONE;\n}`;
  }

  /** A condition: a JS boolean. */
  private cond(e: ast.Expression): string {
    if (this.isBoolean(e)) return this.expr(e);
    return `truthy(${this.expr(e)})`;
  }

  private isBoolean(e: ast.Expression): boolean {
    if (e.type === 'BooleanLiteral') return true;
    if (e.type === 'UnaryExpression' && e.operator === 'not') return true;
    if (e.type === 'BinaryExpression' && ['==', '~=', '<', '>', '<=', '>='].includes(e.operator)) return true;
    if (e.type === 'LogicalExpression') return this.isBoolean(e.left) && this.isBoolean(e.right);
    return false;
  }

  /**
   * Whether `e` gives all its values here: a call not wrapped in parentheses (luaparse drops them, so the
   * source between the previous boundary and the expression is read for an opening one).
   */
  private isMulti(e: ast.Expression, prevEnd: number | null): boolean {
    if (e.type === 'VarargLiteral') throw new Unsupported('varargs');
    if (e.type !== 'CallExpression' && e.type !== 'StringCallExpression' && e.type !== 'TableCallExpression') return false;
    return !this.parenthesized(e, prevEnd);
  }

  private parenthesized(e: ast.Node, prevEnd: number | null): boolean {
    const start = rangeOf(e)[0];
    // Look back over whitespace for a '(' that is not a call's own argument list.
    let i = start - 1;
    while (i >= 0 && /\s/.test(this.src[i]!)) i--;
    if (i < 0 || this.src[i] !== '(') return false;
    // `f(g())`: the '(' right after a callee is the call's own; one after `(`, `,`, `=`, `return`, `{` or
    // an operator opens a parenthesized expression.
    let j = i - 1;
    while (j >= 0 && /\s/.test(this.src[j]!)) j--;
    if (prevEnd !== null && j < prevEnd) return true;
    const c = j >= 0 ? this.src[j]! : '';
    if (/[A-Za-z0-9_\]\)"'}]/.test(c)) {
      // A keyword before '(' (return, and, or, not, in, then, do, else, until) opens an expression too.
      const word = /([A-Za-z_][A-Za-z0-9_]*)$/.exec(this.src.slice(Math.max(0, j - 10), j + 1));
      if (word && ['return', 'and', 'or', 'not', 'in', 'then', 'do', 'else', 'until', 'elseif', 'local'].includes(word[1]!)) return true;
      return false;
    }
    return true;
  }

  /** A call expression keeping all its results (a Ret or a single value). */
  private multi(e: ast.Expression): string {
    return this.call(e as ast.CallExpression, true);
  }

  private call(e: ast.CallExpression | ast.StringCallExpression | ast.TableCallExpression, keepAll: boolean): string {
    const l = this.line(e);
    let args: string;
    if (e.type === 'CallExpression') {
      if (e.base.type === 'Identifier' && e.base.name === 'error' && this.lookup('error') === null && e.arguments.length >= 2) {
        const lv = e.arguments[1]!;
        if (!(lv.type === 'NumericLiteral' && (lv.value === 0 || lv.value === 1))) throw new Unsupported('error with a level other than 0 or 1');
      }
      args = this.argList(e.arguments);
    } else if (e.type === 'StringCallExpression') args = this.expr(e.argument);
    else args = this.expr(e.arguments);
    let out: string;
    const base = e.base;
    if (base.type === 'MemberExpression' && base.indexer === ':') {
      const self = this.temp();
      const obj = this.expr(base.base);
      const k = JSON.stringify(base.identifier.name);
      out = `(${self} = ${obj}, R.fn(R.index(${self}, ${k}, ${l}), ${l}, ${k}, true)(${self}${args === '' ? '' : `, ${args}`}))`;
    } else {
      const name = calleeName(base);
      out = `R.fn(${this.expr(base)}, ${l}${name === null ? '' : `, ${JSON.stringify(name)}`})(${args})`;
    }
    return keepAll ? out : `first(${out})`;
  }

  private argList(args: ast.Expression[]): string {
    if (args.length === 0) return '';
    const last = args[args.length - 1]!;
    const parts = args.slice(0, -1).map((a) => this.expr(a));
    if (this.isMulti(last, args.length > 1 ? rangeOf(args[args.length - 2]!)[1] : null)) {
      parts.push(`...all(${this.multi(last)})`);
    } else parts.push(this.expr(last));
    return parts.join(', ');
  }

  /** A single value. */
  private expr(e: ast.Expression): string {
    switch (e.type) {
      case 'NilLiteral':
        return 'undefined';
      case 'BooleanLiteral':
        return e.value ? 'true' : 'false';
      case 'NumericLiteral':
        return numberLiteral(e.value);
      case 'StringLiteral':
        if (e.value === null) throw new Unsupported('string literal');
        return JSON.stringify(e.value);
      case 'VarargLiteral':
        throw new Unsupported('varargs');
      case 'FunctionDeclaration':
        return this.func(e, null, false);
      case 'Identifier': {
        const js = this.lookup(e.name);
        if (js !== null) return js;
        this.checkGlobal(e.name);
        return `gget(G, ${JSON.stringify(e.name)})`;
      }
      case 'MemberExpression':
        if (e.indexer === ':') throw new Unsupported('method reference');
        return `R.index(${this.expr(e.base)}, ${JSON.stringify(e.identifier.name)}, ${this.line(e)})`;
      case 'IndexExpression':
        return `R.index(${this.expr(e.base)}, ${this.expr(e.index)}, ${this.line(e)})`;
      case 'CallExpression':
      case 'StringCallExpression':
      case 'TableCallExpression':
        return this.call(e, false);
      case 'TableConstructorExpression':
        return this.table(e);
      case 'UnaryExpression': {
        const a = this.expr(e.argument);
        if (e.operator === 'not') return this.isBoolean(e.argument) ? `!(${a})` : `!truthy(${a})`;
        if (e.operator === '-') {
          if (e.argument.type === 'NumericLiteral' && e.argument.value !== 0) return `(${numberLiteral(-e.argument.value)})`;
          return `neg(${a}, ${this.line(e)})`;
        }
        if (e.operator === '#') return `R.len(${a}, ${this.line(e)})`;
        throw new Unsupported(`operator ${e.operator}`);
      }
      case 'BinaryExpression':
        return this.binary(e);
      case 'LogicalExpression': {
        const t = this.temp();
        const a = this.expr(e.left);
        const b = this.expr(e.right);
        if (this.isBoolean(e.left)) return e.operator === 'and' ? `(${a} ? ${b} : false)` : `(${a} ? true : ${b})`;
        return e.operator === 'and' ? `(truthy(${t} = ${a}) ? ${b} : ${t})` : `(truthy(${t} = ${a}) ? ${t} : ${b})`;
      }
      default:
        throw new Unsupported(`expression ${(e as ast.Node).type}`);
    }
  }

  private binary(e: ast.BinaryExpression): string {
    const l = this.line(e);
    const op = e.operator;
    if (op === '..') {
      const parts: ast.Expression[] = [e.left];
      let r: ast.Expression = e.right;
      while (r.type === 'BinaryExpression' && r.operator === '..') {
        parts.push(r.left);
        r = r.right;
      }
      parts.push(r);
      const js = parts.map((p) => this.expr(p));
      if (js.length === 2) return `R.concat2(${js[0]}, ${js[1]}, ${l})`;
      return `R.concat([${js.join(', ')}], ${l})`;
    }
    const a = this.expr(e.left);
    const b = this.expr(e.right);
    switch (op) {
      case '+':
        return `add(${a}, ${b}, ${l})`;
      case '-':
        return `sub(${a}, ${b}, ${l})`;
      case '*':
        return `mul(${a}, ${b}, ${l})`;
      case '/':
        return `div(${a}, ${b}, ${l})`;
      case '%':
        return `modl(${a}, ${b}, ${l})`;
      case '^':
        return `pow(${a}, ${b}, ${l})`;
      case '==':
        return `(${a} === ${b})`;
      case '~=':
        return `(${a} !== ${b})`;
      case '<':
        return `lt(${a}, ${b}, ${l})`;
      case '<=':
        return `le(${a}, ${b}, ${l})`;
      case '>':
        return `gt(${a}, ${b}, ${l})`;
      case '>=':
        return `ge(${a}, ${b}, ${l})`;
      default:
        throw new Unsupported(`operator ${op}`);
    }
  }

  /**
   * A table constructor as Lua 5.1's code stores it: keyed fields as they come, positional items held
   * and stored 50 at a time (SETLIST) — the order `next` later sees.
   */
  private table(e: ast.TableConstructorExpression): string {
    const fields = e.fields;
    if (fields.length === 0) return 'new LuaTable()';
    const l = this.line(e);
    const t = this.temp();
    const parts: string[] = [`${t} = new LuaTable()`];
    let pending: string[] = [];
    let n = 0;
    const flush = (tail: string | null) => {
      if (pending.length === 0 && tail === null) return;
      parts.push(`R.setlist(${t}, ${n - pending.length}, [${pending.join(', ')}]${tail === null ? '' : `, ${tail}`})`);
      pending = [];
    };
    fields.forEach((f, i) => {
      if (pending.length === 50) flush(null);
      if (f.type === 'TableValue') {
        const isLast = i === fields.length - 1;
        if (isLast && this.isMulti(f.value, i > 0 ? rangeOf(fields[i - 1]!)[1] : null)) {
          flush(`all(${this.multi(f.value)})`);
          return;
        }
        const v = this.temp();
        parts.push(`${v} = ${this.expr(f.value)}`);
        pending.push(v);
        n++;
      } else if (f.type === 'TableKeyString') {
        parts.push(`R.tset(${t}, ${JSON.stringify(f.key.name)}, ${this.expr(f.value)}, ${l})`);
      } else {
        parts.push(`R.tset(${t}, ${this.expr(f.key)}, ${this.expr(f.value)}, ${l})`);
      }
    });
    flush(null);
    parts.push(t);
    return `(${parts.join(', ')})`;
  }
}

/** The name Lua's debug info gives a callee at its call site (a variable's name, a constant key), or null. */
function calleeName(e: ast.Expression): string | null {
  if (e.type === 'Identifier') return e.name;
  if (e.type === 'MemberExpression') return e.identifier.name;
  if (e.type === 'IndexExpression' && e.index.type === 'StringLiteral' && e.index.value !== null) return e.index.value;
  return null;
}

function numberLiteral(v: number): string {
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (Object.is(v, -0)) return '-0';
  return String(v);
}

/** The source range luaparse records with `ranges: true` (its types leave it out). */
function rangeOf(n: ast.Node): [number, number] {
  return (n as ast.Node & { range: [number, number] }).range;
}
