/**
 * A quick static check of RIC scripts for known ways to stall an interpreter: loops in an xpcall message
 * handler, `while true` loops with no way out, string.rep with a huge count, a string doubled in a loop,
 * a numeric for with an astronomic bound. All of it is legal Lua, so the verdict is a warning (the budgets
 * are the defence); the webhook and `validate` can be told to refuse instead. Nothing is run, and the
 * check is a token scan, not a full parse: it looks for these shapes only, and says nothing about the rest.
 */
import type { Obj } from './json.js';
import { RIC_OPERATIONS, ricScript } from './ric.js';

export interface ScriptTrap {
  line: number;
  message: string;
}

interface Tok {
  /** `name`, `kw` (keyword), `num`, `str`, or `op` (punctuation). */
  t: 'name' | 'kw' | 'num' | 'str' | 'op';
  v: string;
  line: number;
  /** The value of a number, the decoded text of a string. */
  num?: number;
}

const KEYWORDS = new Set(['and', 'break', 'do', 'else', 'elseif', 'end', 'false', 'for', 'function', 'if', 'in', 'local', 'nil', 'not', 'or', 'repeat', 'return', 'then', 'true', 'until', 'while']);
const OPS = ['...', '..', '==', '~=', '<=', '>=', '::', '//', '<<', '>>'];

/** Lua 5.1 tokens; an unterminated string or comment ends the scan (the compile check reports it). */
function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  let line = 1;
  const n = src.length;
  const longLevel = (p: number): number => {
    if (src[p] !== '[') return -1;
    let j = p + 1;
    while (src[j] === '=') j++;
    return src[j] === '[' ? j - p - 1 : -1;
  };
  const skipLong = (p: number, level: number): number => {
    const close = `]${'='.repeat(level)}]`;
    const end = src.indexOf(close, p + level + 2);
    const stop = end < 0 ? n : end + close.length;
    for (let k = p; k < stop; k++) if (src[k] === '\n') line++;
    return stop;
  };
  while (i < n) {
    const c = src[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') {
      i++;
    } else if (c === '-' && src[i + 1] === '-') {
      const level = longLevel(i + 2);
      if (level >= 0) i = skipLong(i + 2, level);
      else {
        const nl = src.indexOf('\n', i);
        i = nl < 0 ? n : nl;
      }
    } else if (c === '[' && longLevel(i) >= 0) {
      const startLine = line;
      const level = longLevel(i);
      const stop = skipLong(i, level);
      out.push({ t: 'str', v: src.slice(i + level + 2, Math.max(i + level + 2, stop - level - 2)), line: startLine });
      i = stop;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      let text = '';
      while (j < n && src[j] !== c && src[j] !== '\n') {
        if (src[j] === '\\' && j + 1 < n) {
          if (src[j + 1] === '\n') line++;
          text += src[j + 1];
          j += 2;
        } else text += src[j++];
      }
      out.push({ t: 'str', v: text, line });
      i = j + 1;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)/.exec(src.slice(i, i + 64))!;
      out.push({ t: 'num', v: m[0], line, num: Number(m[0]) });
      i += m[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i, i + 256))!;
      out.push({ t: KEYWORDS.has(m[0]) ? 'kw' : 'name', v: m[0], line });
      i += m[0].length;
    } else {
      const op = OPS.find((o) => src.startsWith(o, i)) ?? c;
      out.push({ t: 'op', v: op, line });
      i += op.length;
    }
  }
  return out;
}

const is = (tok: Tok | undefined, v: string) => tok !== undefined && (tok.t === 'kw' || tok.t === 'op') && tok.v === v;

/**
 * Index of the token that closes the block opened at `open` (`function`, `if`, `do`, `while`, `for`,
 * `repeat`): its `end` or `until`; the last token when the script is cut short.
 */
function blockEnd(toks: Tok[], open: number): number {
  let depth = 0;
  for (let i = open; i < toks.length; i++) {
    const k = toks[i]!;
    if (k.t !== 'kw') continue;
    // A while/for opens with its `do`, so only that `do` is counted.
    if (k.v === 'function' || k.v === 'if' || k.v === 'do' || k.v === 'repeat') depth++;
    else if (k.v === 'end' || k.v === 'until') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return toks.length - 1;
}

/** The index of the bracket closing the one at `open` (`(`, `{` or `[`). */
function matching(toks: Tok[], open: number): number {
  const pairs: Record<string, string> = { '(': ')', '{': '}', '[': ']' };
  const stack: string[] = [];
  for (let i = open; i < toks.length; i++) {
    const v = toks[i]!;
    if (v.t !== 'op') continue;
    if (pairs[v.v]) stack.push(pairs[v.v]!);
    else if (v.v === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0) return i;
    }
  }
  return toks.length - 1;
}

/** The top-level arguments of a call whose `(` is at `open`, as [start, end) token ranges. */
function callArgs(toks: Tok[], open: number): Array<[number, number]> {
  const close = matching(toks, open);
  const out: Array<[number, number]> = [];
  let start = open + 1;
  for (let i = open + 1; i < close; i++) {
    const v = toks[i]!;
    if (is(v, '(') || is(v, '{') || is(v, '[')) i = matching(toks, i);
    else if (is(v, 'function')) i = blockEnd(toks, i);
    else if (is(v, ',')) {
      out.push([start, i]);
      start = i + 1;
    }
  }
  if (close > start) out.push([start, close]);
  return out;
}

/** A constant number expression (`1024 * 1024 * 1024`, `2^30`, `1e9`) of numbers and + * ^ ( ), or undefined. */
function constantOf(toks: Tok[], [start, end]: [number, number]): number | undefined {
  let i = start;
  const atom = (): number | undefined => {
    const k = toks[i];
    if (i >= end || !k) return undefined;
    if (k.t === 'num') return (i++, k.num);
    if (!is(k, '(')) return undefined;
    i++;
    const v = sum();
    if (!is(toks[i], ')')) return undefined;
    i++;
    return v;
  };
  const power = (): number | undefined => {
    const base = atom();
    if (base === undefined || i >= end || !is(toks[i], '^')) return base;
    i++;
    const exp = power();
    return exp === undefined ? undefined : base ** exp;
  };
  const binary = (op: string, next: () => number | undefined, f: (a: number, b: number) => number) => (): number | undefined => {
    let v = next();
    while (v !== undefined && i < end && is(toks[i], op)) {
      i++;
      const r = next();
      v = r === undefined ? undefined : f(v, r);
    }
    return v;
  };
  const product = binary('*', power, (a, b) => a * b);
  const sum = binary('+', product, (a, b) => a + b);
  const v = sum();
  return i === end ? v : undefined;
}

/** The body of the function whose `function` keyword is at `at`: after its parameter list, up to its `end`. */
function functionBody(toks: Tok[], at: number): [number, number] {
  let open = at + 1;
  while (open < toks.length && !is(toks[open], '(')) open++;
  return [matching(toks, open) + 1, blockEnd(toks, at)];
}

/** Functions the script names: `function f()`, `local function f()`, `f = function()`, `local f = function()`. */
function namedFunctions(toks: Tok[]): Map<string, [number, number]> {
  const out = new Map<string, [number, number]>();
  for (let i = 0; i < toks.length; i++) {
    const k = toks[i]!;
    if (!is(k, 'function')) continue;
    let name: string | undefined;
    const next = toks[i + 1];
    if (next?.t === 'name' && is(toks[i + 2], '(')) name = next.v;
    else if (is(toks[i - 1], '=') && toks[i - 2]?.t === 'name' && !is(toks[i - 3], '.')) name = toks[i - 2]!.v;
    if (name !== undefined && !out.has(name)) out.set(name, functionBody(toks, i));
  }
  return out;
}

const LOOP_KEYWORDS = ['while', 'repeat', 'for'];

/** Why the code in [start, end) can run long: a loop, or recursion through the script's own functions. */
function loopIn(toks: Tok[], range: [number, number], fns: Map<string, [number, number]>, seen: string[]): string | undefined {
  for (let i = range[0]; i < range[1]; i++) {
    const k = toks[i]!;
    if (k.t === 'kw' && LOOP_KEYWORDS.includes(k.v)) return `a ${k.v} loop`;
    if (k.t === 'name' && is(toks[i + 1], '(') && !is(toks[i - 1], '.') && !is(toks[i - 1], ':') && fns.has(k.v)) {
      if (seen.includes(k.v)) return `recursion through ${k.v}`;
      const why = loopIn(toks, fns.get(k.v)!, fns, [...seen, k.v]);
      if (why) return why.startsWith('recursion') || seen.length > 0 ? why : `${why} in ${k.v}`;
    }
  }
  return undefined;
}

/** xpcall(f, handler): the handler runs after the error, in Lua outside any protection; loops there are the known escape. */
function xpcallTraps(toks: Tok[], fns: Map<string, [number, number]>): ScriptTrap[] {
  const out: ScriptTrap[] = [];
  for (let i = 0; i < toks.length; i++) {
    if (!(toks[i]!.t === 'name' && toks[i]!.v === 'xpcall' && is(toks[i + 1], '('))) continue;
    const args = callArgs(toks, i + 1);
    const h = args[1];
    if (!h) continue;
    let why: string | undefined;
    const first = toks[h[0]]!;
    if (is(first, 'function')) why = loopIn(toks, functionBody(toks, h[0]), fns, []);
    else if (first.t === 'name' && h[1] - h[0] === 1 && fns.has(first.v)) why = loopIn(toks, fns.get(first.v)!, fns, [first.v]);
    if (why) out.push({ line: toks[i]!.line, message: `the xpcall message handler contains ${why}; a handler should only format the error and return it` });
  }
  return out;
}

/** Ways out of a loop body: break (of this loop), return, error(). */
function hasExit(toks: Tok[], start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const k = toks[i]!;
    if (is(k, 'function')) i = blockEnd(toks, i);
    else if (k.t === 'kw' && LOOP_KEYWORDS.includes(k.v)) {
      // A break in a nested loop leaves only that loop; a return or error() there still leaves this one.
      const inner = blockEnd(toks, i);
      for (let j = i; j < inner; j++) {
        if (is(toks[j], 'function')) j = blockEnd(toks, j);
        else if (is(toks[j], 'return') || (toks[j]!.v === 'error' && toks[j]!.t === 'name' && is(toks[j + 1], '('))) return true;
      }
      i = inner;
    } else if (is(k, 'break') || is(k, 'return') || (k.t === 'name' && k.v === 'error' && is(toks[i + 1], '('))) return true;
  }
  return false;
}

/** `while true do` / `while 1 do` / `repeat ... until false` with nothing that leaves the loop. */
function endlessLoops(toks: Tok[]): ScriptTrap[] {
  const out: ScriptTrap[] = [];
  for (let i = 0; i < toks.length; i++) {
    const k = toks[i]!;
    if (is(k, 'while')) {
      const cond = toks[i + 1];
      const alwaysTrue = (is(cond, 'true') || (cond?.t === 'num' && cond.num !== undefined) || cond?.t === 'str') && is(toks[i + 2], 'do');
      if (alwaysTrue && !hasExit(toks, i + 3, blockEnd(toks, i))) out.push({ line: k.line, message: `while ${cond!.v} do has no break, return or error(): it loops until the time budget ends` });
    } else if (is(k, 'repeat')) {
      const until = blockEnd(toks, i);
      const cond = toks[until + 1];
      const nextIsEnd = until + 2 >= toks.length || !['and', 'or', '==', '~=', '..'].includes(toks[until + 2]!.v);
      if ((is(cond, 'false') || is(cond, 'nil')) && nextIsEnd && !hasExit(toks, i + 1, until)) out.push({ line: k.line, message: `repeat ... until ${cond!.v} has no break, return or error(): it loops until the time budget ends` });
    }
  }
  return out;
}

/** Bytes past which a string.rep result is called huge: far beyond any status or replica field. */
const HUGE_BYTES = 10_000_000;
/** Iterations past which a numeric for with constant bounds is called astronomic. */
const HUGE_ITERATIONS = 100_000_000;

function repTraps(toks: Tok[]): ScriptTrap[] {
  const out: ScriptTrap[] = [];
  for (let i = 0; i < toks.length; i++) {
    const k = toks[i]!;
    if (!(k.t === 'name' && k.v === 'rep' && is(toks[i + 1], '('))) continue;
    const viaString = is(toks[i - 1], '.') && toks[i - 2]?.v === 'string';
    const method = is(toks[i - 1], ':');
    if (!viaString && !method) continue;
    const args = callArgs(toks, i + 1);
    const countArg = viaString ? args[1] : args[0];
    if (!countArg) continue;
    const count = constantOf(toks, countArg);
    if (count === undefined) continue;
    // The repeated string's length, when it is a literal: `string.rep("ab", n)` or `("ab"):rep(n)`.
    let len = 1;
    if (viaString && args[0] && args[0][1] - args[0][0] === 1 && toks[args[0][0]]!.t === 'str') len = Math.max(1, toks[args[0][0]]!.v.length);
    if (method && is(toks[i - 2], ')') && toks[i - 3]?.t === 'str' && is(toks[i - 4], '(')) len = Math.max(1, toks[i - 3]!.v.length);
    const sepArg = viaString ? args[2] : args[1];
    if (sepArg && sepArg[1] - sepArg[0] === 1 && toks[sepArg[0]]!.t === 'str') len += toks[sepArg[0]]!.v.length;
    if (count * len >= HUGE_BYTES) out.push({ line: k.line, message: `string.rep builds a string of ${formatCount(count * len)} bytes; scripts get a memory budget far below that` });
  }
  return out;
}

/** `s = s .. s` inside a loop: the string doubles each time round. */
function doublingTraps(toks: Tok[]): ScriptTrap[] {
  const out: ScriptTrap[] = [];
  const loops: Array<[number, number]> = [];
  for (let i = 0; i < toks.length; i++) if (toks[i]!.t === 'kw' && LOOP_KEYWORDS.includes(toks[i]!.v)) loops.push([i, blockEnd(toks, i)]);
  for (let i = 0; i + 4 < toks.length; i++) {
    const [a, eq, b, cat, c] = toks.slice(i, i + 5) as [Tok, Tok, Tok, Tok, Tok];
    if (a.t !== 'name' || !is(eq, '=') || b.t !== 'name' || !is(cat, '..') || c.t !== 'name') continue;
    if (a.v !== b.v || b.v !== c.v || is(toks[i - 1], '.') || is(toks[i - 1], ':')) continue;
    if (loops.some(([s, e]) => s < i && i < e)) out.push({ line: a.line, message: `${a.v} = ${a.v} .. ${a.v} in a loop doubles the string each time round; it outgrows the memory budget in a few dozen rounds` });
  }
  return out;
}

/** `for i = 1, math.huge do` or a constant bound of hundreds of millions. */
function hugeForTraps(toks: Tok[]): ScriptTrap[] {
  const out: ScriptTrap[] = [];
  for (let i = 0; i + 4 < toks.length; i++) {
    if (!(is(toks[i], 'for') && toks[i + 1]!.t === 'name' && is(toks[i + 2], '='))) continue;
    let j = i + 3;
    let doAt = j;
    while (doAt < toks.length && !is(toks[doAt], 'do')) doAt++;
    if (doAt >= toks.length) continue;
    // for v = e1, e2 [, e3] do: the second expression runs from after the first top-level comma.
    let depth = 0;
    for (; j < doAt; j++) {
      if (is(toks[j], '(')) depth++;
      else if (is(toks[j], ')')) depth--;
      else if (depth === 0 && is(toks[j], ',')) break;
    }
    let end = j + 1;
    for (depth = 0; end < doAt; end++) {
      if (is(toks[end], '(')) depth++;
      else if (is(toks[end], ')')) depth--;
      else if (depth === 0 && is(toks[end], ',')) break;
    }
    const limit = toks.slice(j + 1, end);
    const huge = (limit.length === 3 && limit[0]!.v === 'math' && is(limit[1], '.') && limit[2]!.v === 'huge') || (constantOf(toks, [j + 1, end]) ?? 0) >= HUGE_ITERATIONS;
    if (huge && !hasExit(toks, doAt + 1, blockEnd(toks, i))) {
      out.push({ line: toks[i]!.line, message: `the for loop runs to ${limit.map((t) => t.v).join('')} with no break, return or error(): it loops until the time budget ends` });
    }
  }
  return out;
}

/** Bytes past which a string a script builds is called big: more than any field of a status or a spec holds. */
const BIG_STRING = 100_000;

/**
 * What Go's fmt makes of one directive's width or precision digits: a number that passes 1e6 before its
 * last digit is refused (%!(NOVERB), and the rest of the format is lost), else its value.
 */
function goFormatNumber(digits: string): number | 'refused' {
  let n = 0;
  for (const d of digits) {
    if (n > 1e6) return 'refused';
    n = n * 10 + Number(d);
  }
  return n;
}

/** The bytes a string.format literal pads to (each directive's width or precision), and a refused number. */
function formatSize(fmt: string): { bytes: number; refused?: string } {
  let bytes = 0;
  for (const m of fmt.matchAll(/%[-+# 0]*(\d*)(?:\.(\d*))?/g)) {
    for (const digits of [m[1], m[2]]) {
      if (!digits) continue;
      const v = goFormatNumber(digits);
      if (v === 'refused') return { bytes, refused: digits };
      bytes += v;
    }
  }
  return { bytes };
}

/** string.format("...") or ("..."):format(): the index of `format` and its literal format, when there is one. */
function formatCalls(toks: Tok[]): Array<{ at: number; fmt: string }> {
  const out: Array<{ at: number; fmt: string }> = [];
  for (let i = 0; i < toks.length; i++) {
    const k = toks[i]!;
    if (!(k.t === 'name' && k.v === 'format' && is(toks[i + 1], '('))) continue;
    if (is(toks[i - 1], '.') && toks[i - 2]?.v === 'string') {
      const first = callArgs(toks, i + 1)[0];
      if (first && first[1] - first[0] === 1 && toks[first[0]]!.t === 'str') out.push({ at: i, fmt: toks[first[0]]!.v });
    } else if (is(toks[i - 1], ':') && is(toks[i - 2], ')') && toks[i - 3]?.t === 'str' && is(toks[i - 4], '(')) out.push({ at: i, fmt: toks[i - 3]!.v });
  }
  return out;
}

/** string.format with a width or precision of a big string, or one Go's fmt refuses. */
function formatTraps(toks: Tok[]): ScriptTrap[] {
  const out: ScriptTrap[] = [];
  for (const { at, fmt } of formatCalls(toks)) {
    const size = formatSize(fmt);
    if (size.refused !== undefined) {
      out.push({ line: toks[at]!.line, message: `string.format width or precision ${size.refused} is more than Go's fmt takes: it prints %!(NOVERB) and drops the rest of the format` });
    } else if (size.bytes >= BIG_STRING) {
      out.push({ line: toks[at]!.line, message: `string.format pads to ${formatCount(size.bytes)} bytes; no field of a status or a spec holds that much` });
    }
  }
  return out;
}

/**
 * Names assigned a big string the scan can see (`local s = string.format("%0999999d", 1)`, a huge
 * string.rep), with its size in bytes.
 */
function bigStrings(toks: Tok[]): Map<string, number> {
  const out = new Map<string, number>();
  const assigned = (at: number, bytes: number) => {
    // `name = string.format(` / `name = ("..."):format(`: back from the call to the `=`.
    let start = at;
    while (start > 0 && !is(toks[start - 1], '=') && !is(toks[start - 1], ';') && toks[start - 1]!.line === toks[at]!.line && at - start < 6) start--;
    if (is(toks[start - 1], '=') && toks[start - 2]?.t === 'name' && !is(toks[start - 3], '.') && bytes >= BIG_STRING) out.set(toks[start - 2]!.v, bytes);
  };
  for (const { at, fmt } of formatCalls(toks)) assigned(at, formatSize(fmt).bytes);
  for (let i = 0; i < toks.length; i++) {
    const k = toks[i]!;
    if (!(k.t === 'name' && k.v === 'rep' && is(toks[i + 1], '(') && is(toks[i - 1], '.') && toks[i - 2]?.v === 'string')) continue;
    const args = callArgs(toks, i + 1);
    const count = args[1] ? constantOf(toks, args[1]) : undefined;
    const lit = args[0] && args[0][1] - args[0][0] === 1 && toks[args[0][0]]!.t === 'str' ? toks[args[0][0]]!.v.length : 1;
    if (count !== undefined) assigned(i, count * Math.max(1, lit));
  }
  return out;
}

/**
 * A loop that stores one big string in a table (`t[i] = s`, `table.insert(t, s)`): one string to the
 * script's memory budget, but each reference is a copy once the result is converted or the table joined.
 * `error(table.concat(t))` of such a table raises a message of all the copies; string.find with plain
 * over a big string reads all of it each call.
 */
function bigStringTraps(toks: Tok[]): ScriptTrap[] {
  const big = bigStrings(toks);
  if (big.size === 0) return [];
  const out: ScriptTrap[] = [];
  const loops: Array<[number, number]> = [];
  for (let i = 0; i < toks.length; i++) if (toks[i]!.t === 'kw' && LOOP_KEYWORDS.includes(toks[i]!.v)) loops.push([i, blockEnd(toks, i)]);
  const inLoop = (i: number) => loops.some(([s, e]) => s < i && i < e);
  const filled = new Map<string, string>();
  const endsExpression = (t: Tok | undefined) => t === undefined || t.t === 'kw' || t.t === 'name' || is(t, ';') || is(t, ')') || is(t, '}');
  for (let i = 0; i < toks.length; i++) {
    const k = toks[i]!;
    let table: string | undefined;
    let value: string | undefined;
    if (k.t === 'name' && is(toks[i + 1], '[') && !is(toks[i - 1], '.')) {
      const close = matching(toks, i + 1);
      const v = toks[close + 2];
      if (is(toks[close + 1], '=') && v?.t === 'name' && big.has(v.v) && endsExpression(toks[close + 3])) [table, value] = [k.v, v.v];
    } else if (k.t === 'name' && k.v === 'insert' && is(toks[i - 1], '.') && toks[i - 2]?.v === 'table' && is(toks[i + 1], '(')) {
      const args = callArgs(toks, i + 1);
      const last = args[args.length - 1];
      const t0 = args[0] && args[0][1] - args[0][0] === 1 ? toks[args[0][0]]! : undefined;
      const v = last && args.length > 1 && last[1] - last[0] === 1 ? toks[last[0]]! : undefined;
      if (t0?.t === 'name' && v?.t === 'name' && big.has(v.v)) [table, value] = [t0.v, v.v];
    }
    if (table === undefined || value === undefined || !inLoop(i)) continue;
    filled.set(table, value);
    out.push({
      line: k.line,
      message: `${table} gets the ${formatCount(big.get(value)!)}-byte string ${value} once per loop round: one string to the memory budget, but every reference is copied when the result is converted (a result past 1.5 MiB is refused) or the table is joined`,
    });
  }
  for (let i = 0; i < toks.length; i++) {
    const k = toks[i]!;
    if (k.t !== 'name' || (k.v !== 'error' && k.v !== 'assert') || !is(toks[i + 1], '(') || is(toks[i - 1], '.') || is(toks[i - 1], ':')) continue;
    const close = matching(toks, i + 1);
    for (let j = i + 2; j + 4 < close; j++) {
      const t = toks[j + 4]!;
      if (toks[j]!.v === 'table' && is(toks[j + 1], '.') && toks[j + 2]!.v === 'concat' && is(toks[j + 3], '(') && filled.has(t.v)) {
        out.push({ line: k.line, message: `${k.v}(table.concat(${t.v})) raises a message holding every copy of ${filled.get(t.v)}; only its first 4 KiB is kept` });
        break;
      }
    }
  }
  for (let i = 0; i < toks.length; i++) {
    const k = toks[i]!;
    if (!(k.t === 'name' && k.v === 'find' && is(toks[i + 1], '(') && is(toks[i - 1], '.') && toks[i - 2]?.v === 'string')) continue;
    const args = callArgs(toks, i + 1);
    if (args.length < 4 || args[3]![1] - args[3]![0] !== 1 || !is(toks[args[3]![0]], 'true')) continue;
    const over = args.slice(0, 2).map(([a, b]) => (b - a === 1 && big.has(toks[a]!.v) ? toks[a]!.v : undefined)).find((x) => x !== undefined);
    if (over !== undefined) out.push({ line: k.line, message: `string.find with plain over the ${formatCount(big.get(over)!)}-byte string ${over} reads all of it on every call` });
  }
  return out;
}

function formatCount(n: number): string {
  if (!Number.isFinite(n)) return 'unbounded';
  return n >= 1e9 ? `${Math.round(n / 1e8) / 10}G` : n >= 1e6 ? `${Math.round(n / 1e5) / 10}M` : String(n);
}

/** Every known trap in one script, in line order. */
export function findScriptTraps(script: string): ScriptTrap[] {
  const toks = tokenize(script);
  const fns = namedFunctions(toks);
  return [...xpcallTraps(toks, fns), ...endlessLoops(toks), ...repTraps(toks), ...doublingTraps(toks), ...hugeForTraps(toks), ...formatTraps(toks), ...bigStringTraps(toks)].sort(
    (a, b) => a.line - b.line,
  );
}

/** Warnings past this many are summed up in one line: an AdmissionReview's warnings are shown to a person. */
const MAX_WARNINGS = 10;

/**
 * One line per trap in a RIC's scripts, named by operation and line:
 * `InterpreterOperation(InterpretHealth) Lua script line 2: while true do has no break, ...`.
 */
export function ricScriptWarnings(ric: Obj): string[] {
  const out: string[] = [];
  for (const [field, op] of RIC_OPERATIONS) {
    const script = ricScript(ric, field);
    if (script === '') continue;
    for (const t of findScriptTraps(script)) out.push(`InterpreterOperation(${op}) Lua script line ${t.line}: ${t.message}`);
  }
  return out.length > MAX_WARNINGS ? [...out.slice(0, MAX_WARNINGS - 1), `and ${out.length - MAX_WARNINGS + 1} more risky constructs in these scripts`] : out;
}
