/**
 * kubectl's JSONPath templates (`-o jsonpath=...`, and the cells of `-o custom-columns`): text with
 * `{...}` actions, `{range ...}...{end}`, fields, `['quoted keys']`, `[*]`, indices and slices,
 * unions `[0,2]`, recursive descent `..name`, filters `[?(@.status == "True")]` and string literals
 * `{"\n"}`. Missing keys print nothing, as `kubectl get` does (--allow-missing-template-keys=true).
 * Maps and lists print as compact JSON, strings as they are, other values in Go's text form.
 *
 * src/core/jsonpath.ts is the strict one-value subset that state preservation rules use; this one is
 * for printing and accepts the whole template language.
 */

type Step =
  | { t: 'field'; name: string } // '*' for every value of a map
  | { t: 'slice'; start?: number; end?: number; step?: number; single: boolean }
  | { t: 'union'; branches: Step[][] }
  | { t: 'recursive' }
  | { t: 'filter'; left: Step[]; op: string; right: Step[] | Literal }
  | { t: 'literal'; value: Literal['value'] };

interface Literal {
  t: 'literal';
  value: string | number | boolean;
}

type Part = { t: 'text'; text: string } | { t: 'path'; steps: Step[] } | { t: 'range'; steps: Step[]; body: Part[] };

export class JsonPathError extends Error {
  constructor(template: string, message: string) {
    super(`jsonpath ${template}: ${message}`);
    this.name = 'JsonPathError';
  }
}

/** Parses a template once; `execute` can then run it on many objects. */
export function parseJsonPathTemplate(template: string): Part[] {
  const fail = (m: string) => new JsonPathError(template, m);
  const root: Part[] = [];
  const stack: Part[][] = [root];
  let pos = 0;
  while (pos < template.length) {
    const open = template.indexOf('{', pos);
    const cur = stack[stack.length - 1]!;
    if (open < 0) {
      cur.push({ t: 'text', text: template.slice(pos) });
      break;
    }
    if (open > pos) cur.push({ t: 'text', text: template.slice(pos, open) });
    const close = indexOutsideQuotes(template, open + 1, '}');
    if (close < 0) throw fail('unclosed action: a { has no matching }');
    const action = template.slice(open + 1, close).trim();
    pos = close + 1;
    if (action === 'end') {
      if (stack.length === 1) throw fail('{end} without a {range ...} before it');
      stack.pop();
      continue;
    }
    const range = /^range\s+(.*)$/s.exec(action);
    if (range) {
      const part: Part = { t: 'range', steps: parsePath(range[1]!, fail), body: [] };
      cur.push(part);
      stack.push(part.body);
      continue;
    }
    cur.push({ t: 'path', steps: parsePath(action, fail) });
  }
  if (stack.length > 1) throw fail('{range ...} without an {end}');
  return root;
}

/** The first `ch` at or after `from` outside a quoted string: the end of an action `}`, of a filter `)`. */
function indexOutsideQuotes(s: string, from: number, ch: string): number {
  let quote = '';
  for (let i = from; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ch) return i;
  }
  return -1;
}

const IDENT = /[A-Za-z0-9_$/-]/;

function parsePath(src: string, fail: (m: string) => Error): Step[] {
  const steps: Step[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '@' || c === '$') {
      i++;
    } else if (src.startsWith('..', i)) {
      steps.push({ t: 'recursive' });
      i += 2;
      if (i < src.length && IDENT.test(src[i]!)) i = readField(src, i, steps);
    } else if (c === '.') {
      i = readField(src, i + 1, steps);
    } else if (src.startsWith('[?(', i)) {
      const end = indexOutsideQuotes(src, i + 3, ')');
      if (end < 0 || src[end + 1] !== ']') throw fail('unterminated filter: write [?(@.field == "value")]');
      steps.push(parseFilter(src.slice(i + 3, end), fail));
      i = end + 2;
    } else if (c === '[') {
      const end = src.indexOf(']', i);
      if (end < 0) throw fail('unterminated [');
      steps.push(parseBracket(src.slice(i + 1, end).trim(), fail));
      i = end + 1;
    } else if (c === '"' || c === "'") {
      const [value, next] = readQuoted(src, i, fail);
      steps.push({ t: 'literal', value });
      i = next;
    } else if (/[-+\d]/.test(c)) {
      const m = /^[-+]?\d+(\.\d+)?/.exec(src.slice(i));
      if (!m) throw fail(`cannot parse number at "${src.slice(i)}"`);
      steps.push({ t: 'literal', value: Number(m[0]) });
      i += m[0].length;
    } else if (/[A-Za-z]/.test(c)) {
      const m = /^[A-Za-z0-9_]+/.exec(src.slice(i))!;
      if (m[0] !== 'true' && m[0] !== 'false') throw fail(`unrecognized identifier ${m[0]}; fields start with a dot (.${m[0]})`);
      steps.push({ t: 'literal', value: m[0] === 'true' });
      i += m[0].length;
    } else {
      throw fail(`unrecognized character ${JSON.stringify(c)} in "${src}"`);
    }
  }
  return steps;
}

function readField(src: string, i: number, steps: Step[]): number {
  if (src[i] === '*') {
    steps.push({ t: 'field', name: '*' });
    return i + 1;
  }
  let j = i;
  let name = '';
  // kubectl's escape: `\.` is a dot inside the name (`.metadata.annotations.work\.karmada\.io/name`)
  for (; j < src.length; j++) {
    const c = src[j]!;
    if (c === '\\' && j + 1 < src.length) name += src[++j];
    else if (IDENT.test(c)) name += c;
    else break;
  }
  // `{.}` is the current object itself.
  if (j > i) steps.push({ t: 'field', name });
  return j;
}

function readQuoted(src: string, i: number, fail: (m: string) => Error): [string, number] {
  const q = src[i]!;
  let out = '';
  for (let j = i + 1; j < src.length; j++) {
    const c = src[j]!;
    if (c === q) return [out, j + 1];
    if (c === '\\' && j + 1 < src.length) {
      const n = src[++j]!;
      out += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'r' ? '\r' : n;
    } else out += c;
  }
  throw fail('unterminated quoted string');
}

function parseBracket(text: string, fail: (m: string) => Error): Step {
  if (text === '*') return { t: 'slice', single: false };
  const parts = splitUnion(text);
  if (parts.length > 1) return { t: 'union', branches: parts.map((p) => [parseBracket(p.trim(), fail)]) };
  const key = /^(?:'([^']*)'|"([^"]*)")$/.exec(text);
  if (key) return { t: 'field', name: key[1] ?? key[2]! };
  const m = /^(-?\d+)?(?::(-?\d+)?)?(?::(-?\d+)?)?$/.exec(text);
  if (!m || text === '') throw fail(`invalid array index [${text}]; use [0], [-1], [1:3], [*] or ['key']`);
  if (!text.includes(':')) return { t: 'slice', start: Number(m[1]), single: true };
  return { t: 'slice', start: m[1] === undefined ? undefined : Number(m[1]), end: m[2] === undefined ? undefined : Number(m[2]), step: m[3] === undefined ? undefined : Number(m[3]), single: false };
}

function splitUnion(text: string): string[] {
  const out: string[] = [];
  let quote = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === ',') {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

function parseFilter(text: string, fail: (m: string) => Error): Step {
  const m = /^\s*([^!<>=]+?)\s*(==|!=|<=|>=|<|>|=~)\s*(.+?)\s*$/.exec(text);
  if (!m) return { t: 'filter', left: parsePath(text, fail), op: 'exists', right: [] };
  if (m[2] === '=~') throw fail('regular expression filters (=~) are not supported by Kubernetes JSONPath');
  return { t: 'filter', left: parsePath(m[1]!, fail), op: m[2]!, right: parsePath(m[3]!, fail) };
}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Go's order for map keys, which kubectl's output follows. */
const sortedKeys = (o: Record<string, unknown>) => Object.keys(o).sort();

function walk(values: unknown[], steps: Step[]): unknown[] {
  let cur = values;
  for (const s of steps) cur = cur.flatMap((v) => apply(v, s));
  return cur;
}

function apply(v: unknown, s: Step): unknown[] {
  switch (s.t) {
    case 'literal':
      return [s.value];
    case 'field':
      if (!isMap(v)) return [];
      if (s.name === '*') return sortedKeys(v).map((k) => v[k]);
      return Object.prototype.hasOwnProperty.call(v, s.name) ? [v[s.name]] : [];
    case 'recursive':
      return descend(v);
    case 'union':
      return s.branches.flatMap((b) => walk([v], b));
    case 'slice': {
      if (!Array.isArray(v)) return [];
      const n = v.length;
      if (s.single) {
        const i = s.start! < 0 ? n + s.start! : s.start!;
        return i >= 0 && i < n ? [v[i]] : [];
      }
      const norm = (x: number | undefined, d: number) => (x === undefined ? d : x < 0 ? Math.max(0, n + x) : Math.min(n, x));
      const start = norm(s.start, 0);
      const end = norm(s.end, n);
      const step = s.step && s.step > 0 ? s.step : 1;
      const out: unknown[] = [];
      for (let i = start; i < end; i += step) out.push(v[i]);
      return out;
    }
    case 'filter': {
      const items = Array.isArray(v) ? v : isMap(v) ? sortedKeys(v).map((k) => v[k]) : [];
      return items.filter((item) => {
        const left = walk([item], s.left);
        if (s.op === 'exists') return left.length > 0;
        const right = Array.isArray(s.right) ? walk([item], s.right) : [s.right];
        if (left.length === 0 || right.length === 0) return false;
        return compare(left[0], s.op, right[0]);
      });
    }
  }
}

/** The value and every value below it, depth first, as `..` visits them. */
function descend(v: unknown): unknown[] {
  const out: unknown[] = [v];
  if (Array.isArray(v)) for (const x of v) out.push(...descend(x));
  else if (isMap(v)) for (const k of sortedKeys(v)) out.push(...descend(v[k]));
  return out;
}

function compare(a: unknown, op: string, b: unknown): boolean {
  if (op === '==' || op === '!=') {
    const eq = typeof a === typeof b ? JSON.stringify(a) === JSON.stringify(b) : String(a) === String(b);
    return eq === (op === '==');
  }
  // Order is defined between two numbers or two strings only.
  if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) return false;
  const x = a as number | string;
  const y = b as number | string;
  switch (op) {
    case '<': return x < y;
    case '>': return x > y;
    case '<=': return x <= y;
    case '>=': return x >= y;
  }
  return false;
}

/** One result as kubectl prints it. */
export function printJsonPathValue(v: unknown): string {
  if (v === null || v === undefined) return v === null ? 'null' : '';
  if (typeof v === 'string') return v;
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** The values one path selects (custom-columns joins them with commas). */
export function selectJsonPath(parts: Part[], root: unknown): unknown[] {
  return parts.flatMap((p) => (p.t === 'path' ? walk([root], p.steps) : p.t === 'text' ? [p.text] : []));
}

/** Runs a parsed template on one object: the text kubectl would print. */
export function executeJsonPath(parts: Part[], root: unknown): string {
  let out = '';
  for (const p of parts) {
    if (p.t === 'text') out += p.text;
    else if (p.t === 'path') out += walk([root], p.steps).map(printJsonPathValue).join(' ');
    else for (const item of walk([root], p.steps)) out += executeJsonPath(p.body, item);
  }
  return out;
}

export type JsonPathTemplate = Part[];
