/**
 * `string.format` as gopher-lua implements it: Go's fmt.Sprintf applied to Lua values. That means
 * `%d` truncates 2.5 to 2, `%s` of a number uses Lua's number printing, `%g` is Go's shortest form,
 * missing arguments print `%!d(MISSING)` instead of raising, and only as many arguments are passed as
 * `count('%') - count('%%')` in the format.
 */
import { formatLuaNumber, goFormatE, goFormatF, goFormatG, isGoInteger } from './numbers.js';

/** A Lua value as the formatter sees it. Tables and functions carry a printable identity. */
export type FormatArg =
  | { t: 'number'; v: number }
  | { t: 'string'; v: string }
  | { t: 'boolean'; v: boolean }
  | { t: 'nil' }
  | { t: 'table' | 'function' | 'userdata' | 'thread'; id: string };

interface Spec {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width: number | null;
  prec: number | null;
  verb: string;
}

const GO_TYPE: Record<string, string> = {
  number: 'lua.LNumber',
  string: 'lua.LString',
  boolean: 'lua.LBool',
  nil: '*lua.LNilType',
  table: '*lua.LTable',
  function: '*lua.LFunction',
  userdata: '*lua.LUserData',
  thread: '*lua.LState',
};

function toInt64(v: number): bigint {
  if (!Number.isFinite(v) || v >= 2 ** 63 || v < -(2 ** 63)) return -(1n << 63n);
  return BigInt(Math.trunc(v));
}

function pad(s: string, spec: Spec, zeroOk: boolean): string {
  if (spec.width === null || s.length >= spec.width) return s;
  const n = spec.width - [...s].length;
  if (n <= 0) return s;
  if (spec.minus) return s + ' '.repeat(n);
  if (spec.zero && zeroOk) {
    const signMatch = /^[+\- ]/.exec(s);
    if (signMatch) return signMatch[0] + '0'.repeat(n) + s.slice(1);
    return '0'.repeat(n) + s;
  }
  return ' '.repeat(n) + s;
}

function signed(body: string, neg: boolean, spec: Spec): string {
  if (neg) return '-' + body;
  if (spec.plus) return '+' + body;
  if (spec.space) return ' ' + body;
  return body;
}

function fmtInt(v: bigint, spec: Spec): string {
  const neg = v < 0n;
  const a = neg ? -v : v;
  let body: string;
  switch (spec.verb) {
    case 'x':
      body = a.toString(16);
      if (spec.sharp) body = '0x' + body;
      break;
    case 'X':
      body = a.toString(16).toUpperCase();
      if (spec.sharp) body = '0X' + body;
      break;
    case 'o':
      body = a.toString(8);
      if (spec.sharp) body = '0' + body;
      break;
    case 'b':
      body = a.toString(2);
      break;
    case 'c':
      return pad(String.fromCodePoint(Number(v) >= 0 && Number(v) <= 0x10ffff ? Number(v) : 0xfffd), spec, false);
    case 'U': {
      const hex = a.toString(16).toUpperCase().padStart(4, '0');
      return pad(`U+${hex}`, spec, false);
    }
    default:
      body = a.toString(10);
  }
  if (spec.prec !== null) {
    if (spec.prec === 0 && v === 0n) body = '';
    else body = body.padStart(spec.prec, '0');
  }
  return pad(signed(body, neg, spec), spec, spec.prec === null);
}

function fmtFloat(v: number, spec: Spec): string {
  const neg = v < 0 || Object.is(v, -0);
  const a = Math.abs(v);
  let body: string;
  switch (spec.verb) {
    case 'e':
    case 'E':
      body = goFormatE(a, spec.prec ?? 6, spec.verb === 'E');
      break;
    case 'f':
    case 'F':
      body = goFormatF(a, spec.prec ?? 6);
      break;
    case 'G':
      body = goFormatG(a, spec.prec ?? -1, true);
      break;
    default:
      body = goFormatG(a, spec.prec ?? -1);
  }
  if (body === 'NaN') return pad(spec.plus ? '+NaN' : spec.space ? ' NaN' : 'NaN', spec, false);
  if (body === '+Inf') body = 'Inf';
  const s = signed(body, neg && !Number.isNaN(v), spec);
  return pad(s, spec, Number.isFinite(v));
}

function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (c === 7) out += '\\a';
    else if (c === 8) out += '\\b';
    else if (c === 12) out += '\\f';
    else if (c === 10) out += '\\n';
    else if (c === 13) out += '\\r';
    else if (c === 9) out += '\\t';
    else if (c === 11) out += '\\v';
    else if (c === 0xfffd) out += '\\ufffd';
    else if (c < 32 || c === 127) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + '"';
}

function fmtString(s: string, spec: Spec): string {
  switch (spec.verb) {
    case 's':
    case 'v': {
      const t = spec.prec !== null ? [...s].slice(0, spec.prec).join('') : s;
      return pad(t, spec, true);
    }
    case 'q':
      return pad(quote(s), spec, false);
    case 'x':
    case 'X': {
      let h = Buffer.from(s, 'utf8').toString('hex');
      if (spec.verb === 'X') h = h.toUpperCase();
      return pad(h, spec, false);
    }
    default:
      return `%!${spec.verb}(string=${s})`;
  }
}

function display(a: FormatArg): string {
  switch (a.t) {
    case 'number':
      return formatLuaNumber(a.v);
    case 'string':
      return a.v;
    case 'boolean':
      return a.v ? 'true' : 'false';
    case 'nil':
      return 'nil';
    default:
      return `${a.t}: ${a.id}`;
  }
}

function formatOne(a: FormatArg, spec: Spec): string {
  const c = spec.verb;
  switch (a.t) {
    case 'number': {
      if (c === 'q' || c === 's') return fmtString(formatLuaNumber(a.v), spec);
      if ('bcdoxXU'.includes(c)) return fmtInt(toInt64(a.v), spec);
      if ('eEfFgG'.includes(c)) return fmtFloat(a.v, spec);
      if (c === 'i') return fmtInt(toInt64(a.v), { ...spec, verb: 'd' });
      if (isGoInteger(a.v)) return c === 'v' ? fmtInt(toInt64(a.v), { ...spec, verb: 'd' }) : `%!${c}(int64=${toInt64(a.v)})`;
      return c === 'v' ? fmtFloat(a.v, { ...spec, verb: 'g' }) : `%!${c}(float64=${formatLuaNumber(a.v)})`;
    }
    case 'string': {
      if (c === 'd' || c === 'i') {
        // gopher-lua's (inverted) check: a numeric string prints as-is, anything else as 0.
        if (/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$|^\s*0[xX][0-9a-fA-F]+\s*$/.test(a.v)) return fmtString(a.v, { ...spec, verb: 's' });
        return fmtInt(0n, { ...spec, verb: 'd' });
      }
      return fmtString(a.v, spec);
    }
    case 'boolean':
      if (c === 's' || c === 'v' || c === 't' || c === 'q') return c === 'q' ? quote(display(a)) : pad(display(a), spec, false);
      return `%!${c}(lua.LBool=${display(a)})`;
    case 'nil':
      if (c === 's' || c === 'v') return pad('nil', spec, false);
      if (c === 'q') return quote('nil');
      return '&{}';
    default:
      if (c === 's' || c === 'v') return pad(display(a), spec, false);
      return `%!${c}(${GO_TYPE[a.t]}=${display(a)})`;
  }
}

/**
 * Go's parsenum: the digits of a width or precision at `i`. A number that passes 1e6 before its last digit
 * (8 digits or more) is "crazy long": Go gives up on the rest of the format (`next` is its end), which then
 * ends in %!(NOVERB). So a width is at most 9,999,999, as in gopher-lua.
 */
function parseNum(format: string, i: number): { num: number; isnum: boolean; next: number } {
  let num = 0;
  let isnum = false;
  let j = i;
  for (; j < format.length; j++) {
    const c = format.charCodeAt(j);
    if (c < 48 || c > 57) break;
    if (num > 1e6) return { num: 0, isnum: false, next: format.length };
    num = num * 10 + (c - 48);
    isnum = true;
  }
  return { num, isnum, next: j };
}

/**
 * Go's fmt.Sprintf over Lua values. `grow`, when given, hears the output's length after each directive
 * past 4 KiB and may throw: a width is at most 10,000,009 (Go's parsenum), but a format of many directives
 * ("%999999d" a thousand times is 8 KB) would otherwise build gigabytes before anything counted them.
 */
export function goSprintf(format: string, allArgs: FormatArg[], grow?: (length: number) => void): string {
  const percents = format.split('%').length - 1;
  const doubles = format.split('%%').length - 1;
  const npat = percents - doubles;
  const args = allArgs.slice(0, Math.max(0, Math.min(npat, allArgs.length)));
  let out = '';
  let argi = 0;
  let i = 0;
  const n = format.length;
  while (i < n) {
    const pct = format.indexOf('%', i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    if (i >= n) {
      out += '%!(NOVERB)';
      break;
    }
    const spec: Spec = { minus: false, plus: false, sharp: false, space: false, zero: false, width: null, prec: null, verb: '' };
    for (; i < n; i++) {
      const ch = format[i];
      if (ch === '-') spec.minus = true;
      else if (ch === '+') spec.plus = true;
      else if (ch === '#') spec.sharp = true;
      else if (ch === ' ') spec.space = true;
      else if (ch === '0') spec.zero = !spec.minus;
      else break;
    }
    if (format[i] === '*') {
      // Go's intFromArg takes only Go integers; a Lua number is a float64, so gopher-lua prints
      // %!(BADWIDTH) and uses the argument up.
      argi++;
      out += '%!(BADWIDTH)';
      i++;
    } else {
      const w = parseNum(format, i);
      if (w.isnum) spec.width = w.num;
      i = w.next;
    }
    if (format[i] === '.') {
      i++;
      if (format[i] === '*') {
        argi++;
        out += '%!(BADPREC)';
        i++;
      } else {
        const p = parseNum(format, i);
        spec.prec = p.isnum ? p.num : 0;
        i = p.next;
      }
    }
    const cp = format.codePointAt(i);
    if (cp === undefined) {
      out += '%!(NOVERB)';
      break;
    }
    spec.verb = String.fromCodePoint(cp);
    i += spec.verb.length;
    if (spec.verb === '%') {
      out += '%';
      continue;
    }
    if (argi >= args.length) {
      out += `%!${spec.verb}(MISSING)`;
      continue;
    }
    if (grow !== undefined) {
      // A wide directive is up to 10 MB of padding or digits: counted (and the clock read) before it is built.
      const wide = Math.max(spec.width ?? 0, spec.prec ?? 0);
      if (out.length + wide > 4096) grow(out.length + wide);
    }
    out += formatOne(args[argi++]!, spec);
    if (grow !== undefined && out.length > 4096) grow(out.length);
  }
  if (argi < args.length) {
    out += '%!(EXTRA ' + args.slice(argi).map((a) => `${GO_TYPE[a.t]}=${display(a)}`).join(', ') + ')';
  }
  return out;
}
