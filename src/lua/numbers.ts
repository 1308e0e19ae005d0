/**
 * gopher-lua's number behaviour: every number is a float64, integral values print as integers and the
 * rest with Go's shortest `%v` form (`0.30000000000000004`, `1.2345675e+06`, `+Inf`, `NaN`).
 */

const TWO63 = 2 ** 63;

/** True when Go's `float64(int64(v)) == v` holds, which is gopher's test for printing as an integer. */
export function isGoInteger(v: number): boolean {
  return Number.isInteger(v) && v >= -TWO63 && v < TWO63;
}

/** `tostring(n)` and `..` as gopher-lua prints numbers. */
export function formatLuaNumber(v: number): string {
  if (isGoInteger(v)) {
    if (v > -1e15 && v < 1e15) return String(v === 0 ? 0 : v);
    return BigInt(v).toString();
  }
  return goFormatG(v, -1);
}

/** Shortest digits and decimal exponent of |v| (v finite, non-zero): v = 0.d1d2d3... x 10^dp. */
function shortestDigits(v: number): { digits: string; dp: number } {
  const [mant, e] = Math.abs(v).toExponential().split('e') as [string, string];
  return { digits: mant.replace('.', ''), dp: Number(e) + 1 };
}

/** Exact decimal expansion of a finite positive double: value = 0.digits x 10^dp. */
function exactDigits(a: number): { digits: string; dp: number } {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, a);
  const bits = buf.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let e: number;
  if (expBits === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = expBits - 1075;
  }
  if (e >= 0) {
    const s = (mant << BigInt(e)).toString();
    return { digits: s, dp: s.length };
  }
  // mant / 2^-e = mant * 5^-e / 10^-e
  const s = (mant * 5n ** BigInt(-e)).toString();
  return { digits: s, dp: s.length + e };
}

/** Rounds exact digits to n significant digits, half to even like Go. */
function roundDigits(x: { digits: string; dp: number }, n: number): { digits: string; dp: number } {
  const { digits, dp } = x;
  if (digits.length <= n) return { digits: digits.padEnd(n, '0'), dp };
  let head = digits.slice(0, n);
  const rest = digits.slice(n);
  const up = rest[0]! > '5' || (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) || Number(head[n - 1] ?? '0') % 2 === 1));
  if (!up) return { digits: head, dp };
  const bumped = (BigInt(head === '' ? '0' : head) + 1n).toString();
  if (n === 0) return { digits: bumped, dp: dp + 1 };
  if (bumped.length > n) return { digits: bumped.slice(0, n), dp: dp + 1 };
  head = bumped.padStart(n, '0');
  return { digits: head, dp };
}

/** Digits of |v| rounded to `n` significant digits (n >= 1). */
function precisionDigits(v: number, n: number): { digits: string; dp: number } {
  return roundDigits(exactDigits(Math.abs(v)), n);
}

function expSuffix(exp: number, upper: boolean): string {
  const sign = exp < 0 ? '-' : '+';
  const a = Math.abs(exp);
  return `${upper ? 'E' : 'e'}${sign}${a < 10 ? '0' : ''}${a}`;
}

function special(v: number, plusInf = '+Inf'): string | null {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return plusInf;
  if (v === -Infinity) return '-Inf';
  return null;
}

/** Go's %e with precision `prec` (-1 = shortest). */
export function goFormatE(v: number, prec: number, upper = false): string {
  const sp = special(v);
  if (sp !== null) return sp;
  const neg = v < 0 || Object.is(v, -0);
  if (v === 0) {
    const p = prec < 0 ? 0 : prec;
    return `${neg ? '-' : ''}0${p > 0 ? '.' + '0'.repeat(p) : ''}${expSuffix(0, upper)}`;
  }
  const { digits, dp } = prec < 0 ? shortestDigits(v) : precisionDigits(v, prec + 1);
  const frac = prec < 0 ? digits.slice(1) : digits.slice(1).padEnd(prec, '0');
  return `${neg ? '-' : ''}${digits[0]}${frac.length ? '.' + frac : ''}${expSuffix(dp - 1, upper)}`;
}

/** Go's %f with precision `prec` (-1 = shortest). */
export function goFormatF(v: number, prec: number): string {
  const sp = special(v);
  if (sp !== null) return sp;
  const neg = v < 0 || Object.is(v, -0);
  let body: string;
  if (prec < 0) {
    if (v === 0) body = '0';
    else {
      const { digits, dp } = shortestDigits(v);
      if (dp <= 0) body = `0.${'0'.repeat(-dp)}${digits}`;
      else if (dp >= digits.length) body = digits + '0'.repeat(dp - digits.length);
      else body = `${digits.slice(0, dp)}.${digits.slice(dp)}`;
    }
  } else {
    body = fixedHalfEven(Math.abs(v), prec);
  }
  return `${neg ? '-' : ''}${body}`;
}

function fixedHalfEven(a: number, prec: number): string {
  if (a === 0) return prec > 0 ? `0.${'0'.repeat(prec)}` : '0';
  const x = exactDigits(a);
  const n = x.dp + prec;
  let digits: string;
  let dp: number;
  if (n < 0) {
    digits = '';
    dp = x.dp;
  } else ({ digits, dp } = roundDigits(x, n));
  // Build the integer and fractional parts from digits positioned at dp.
  let intPart: string;
  let frac: string;
  if (digits === '' || /^0*$/.test(digits)) {
    intPart = '0';
    frac = '0'.repeat(prec);
  } else if (dp <= 0) {
    intPart = '0';
    frac = ('0'.repeat(-dp) + digits).slice(0, prec).padEnd(prec, '0');
  } else {
    intPart = digits.slice(0, dp).padEnd(dp, '0');
    frac = digits.slice(dp).padEnd(prec, '0').slice(0, prec);
  }
  return prec === 0 ? intPart : `${intPart}.${frac}`;
}

/** Go's %g / %v with precision `prec` (-1 = shortest, the %v form). */
export function goFormatG(v: number, prec: number, upper = false): string {
  const sp = special(v);
  if (sp !== null) return sp;
  const neg = v < 0 || Object.is(v, -0);
  if (v === 0) return neg ? '-0' : '0';
  const shortest = prec < 0;
  let p = prec === 0 ? 1 : prec;
  const { digits, dp } = shortest ? shortestDigits(v) : precisionDigits(v, p);
  // Go trims trailing zeros for %g.
  const d = digits.replace(/0+$/, '') || '0';
  let eprec = p;
  if (eprec > d.length && d.length >= dp) eprec = d.length;
  if (shortest) eprec = 6;
  const exp = dp - 1;
  const sign = neg ? '-' : '';
  if (exp < -4 || exp >= eprec) {
    return `${sign}${d[0]}${d.length > 1 ? '.' + d.slice(1) : ''}${expSuffix(exp, upper)}`;
  }
  let body: string;
  if (dp <= 0) body = `0.${'0'.repeat(-dp)}${d}`;
  else if (dp >= d.length) body = d + '0'.repeat(dp - d.length);
  else body = `${d.slice(0, dp)}.${d.slice(dp)}`;
  return sign + body;
}

const GO_FLOAT = /^[+-]?(?:[0-9]+(?:_[0-9]+)*\.?(?:[0-9]+(?:_[0-9]+)*)?|\.[0-9]+(?:_[0-9]+)*)(?:[eE][+-]?[0-9]+)?$/;

/** Go strconv.ParseFloat for decimal text; null where Go returns an error (incl. out of range). */
export function goParseFloat(s: string): number | null {
  if (/^[+-]?(inf|infinity|nan)$/i.test(s)) {
    const l = s.toLowerCase();
    if (l.includes('nan')) return NaN;
    return l.startsWith('-') ? -Infinity : Infinity;
  }
  if (!GO_FLOAT.test(s) || s.includes('_')) return null;
  const v = Number(s);
  if (!Number.isFinite(v)) return null;
  return v;
}

/** Go strconv.ParseInt(s, base, 64) as a float64; null on syntax or range error. */
export function goParseInt(s: string, base: number): number | null {
  let t = s;
  let neg = false;
  if (t.startsWith('+') || t.startsWith('-')) {
    neg = t[0] === '-';
    t = t.slice(1);
  }
  if (t.length === 0 || base < 2 || base > 36) return null;
  let acc = 0n;
  const b = BigInt(base);
  for (const ch of t.toLowerCase()) {
    const c = ch.charCodeAt(0);
    let d: number;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (c >= 97 && c <= 122) d = c - 87;
    else return null;
    if (d >= base) return null;
    acc = acc * b + BigInt(d);
  }
  if (neg) acc = -acc;
  if (acc > (1n << 63n) - 1n || acc < -(1n << 63n)) return null;
  return Number(acc);
}

/** gopher-lua `tonumber(s [, base])` on a string. */
export function goToNumber(str: string, base?: number): number | null {
  const s = str.replace(/^[ \n\t]+|[ \n\t]+$/g, '');
  if (s.includes('.')) return goParseFloat(s);
  let b = base ?? 10;
  let t = s;
  if (base === undefined && t.toLowerCase().startsWith('0x')) {
    b = 16;
    t = t.slice(2);
  }
  return goParseInt(t, b);
}
