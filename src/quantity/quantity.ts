/**
 * A port of the observable behaviour of Kubernetes `resource.Quantity` (apimachinery).
 *
 * Go keeps a quantity either as an int64 mantissa with a base-10 scale ("int64Amount") or as an
 * arbitrary-precision decimal ("inf.Dec"). The two paths round differently and, more visibly, give
 * different `AsApproximateFloat64` results, so both are modelled: `unscaled * 10^exp`, with `dec`
 * recording which path Go would be on. The canonical `String()` form, the "reuse the input string when
 * it is already canonical" shortcut, the rounding up to nano units and the BinarySI cap all follow Go.
 */

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";
export const QUANTITY_NUMERIC_ERROR = "unable to parse quantity's numeric part";

/** Raised for text that is not a quantity; the message is Go's, so callers can show it verbatim. */
export class QuantityParseError extends Error {
  constructor(
    readonly input: string,
    readonly reason: string,
  ) {
    super(`cannot parse '${input}': ${reason}`);
    this.name = 'QuantityParseError';
  }
}

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const NANO = -9;
const MAX_INT64_FACTORS = 18;

const DEC_SUFFIX_EXP: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DEC_EXP_SUFFIX = new Map<number, string>(Object.entries(DEC_SUFFIX_EXP).map(([s, e]) => [e, s]));
const BIN_SUFFIX_EXP: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const BIN_EXP_SUFFIX = new Map<number, string>([[0, ''], ...Object.entries(BIN_SUFFIX_EXP).map(([s, e]) => [e, s] as [number, string])]);

const fitsInt64 = (v: bigint): boolean => v >= INT64_MIN && v <= INT64_MAX;
const pow10 = (n: number): bigint => 10n ** BigInt(n);
const abs = (v: bigint): bigint => (v < 0n ? -v : v);

export class Quantity {
  /** Value is `unscaled * 10^exp`. */
  constructor(
    readonly unscaled: bigint,
    readonly exp: number,
    readonly format: QuantityFormat,
    /** True when Go would hold this value as an inf.Dec rather than an int64Amount. */
    readonly dec: boolean = false,
    private cached?: string,
  ) {}

  static zero(format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(0n, 0, format);
  }

  /** `resource.NewQuantity(value, format)`. */
  static fromInt(value: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(BigInt(value), 0, format);
  }

  /** `resource.NewMilliQuantity(value, format)`. */
  static fromMilli(value: number | bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
    return new Quantity(BigInt(value), -3, format);
  }

  isZero(): boolean {
    return this.unscaled === 0n;
  }

  sign(): number {
    return this.unscaled === 0n ? 0 : this.unscaled > 0n ? 1 : -1;
  }

  /** Go's `Add`: a new quantity; the format comes from `y` while the running value is still zero. */
  add(y: Quantity): Quantity {
    const format = this.isZero() ? y.format : this.format;
    if (!this.dec && !y.dec) {
      if (y.unscaled === 0n) return new Quantity(this.unscaled, this.exp, format);
      if (this.unscaled === 0n) return new Quantity(y.unscaled, y.exp, format);
      const e = Math.min(this.exp, y.exp);
      const a = this.unscaled * pow10(this.exp - e);
      const b = y.unscaled * pow10(y.exp - e);
      if (fitsInt64(a) && fitsInt64(b) && fitsInt64(a + b)) return new Quantity(a + b, e, format);
    }
    const e = Math.min(this.exp, y.exp);
    const sum = this.unscaled * pow10(this.exp - e) + y.unscaled * pow10(y.exp - e);
    return new Quantity(sum, e, format, true);
  }

  sub(y: Quantity): Quantity {
    return this.add(new Quantity(-y.unscaled, y.exp, y.format, y.dec));
  }

  /** -1, 0 or 1, comparing numerically (format is irrelevant, as in Go's `Cmp`). */
  cmp(y: Quantity): number {
    const e = Math.min(this.exp, y.exp);
    const a = this.unscaled * pow10(this.exp - e);
    const b = y.unscaled * pow10(y.exp - e);
    return a === b ? 0 : a < b ? -1 : 1;
  }

  equal(y: Quantity): boolean {
    return this.cmp(y) === 0;
  }

  /** The value scaled to 10^scale, rounded away from zero when precision is lost (as Go does). */
  scaledValue(scale: number): bigint {
    if (this.exp >= scale) return this.unscaled * pow10(this.exp - scale);
    const div = pow10(scale - this.exp);
    const q = this.unscaled / div;
    const r = this.unscaled % div;
    if (r === 0n) return q;
    // Go's int64 path rounds away from zero; its decimal path rounds toward +inf.
    return this.unscaled > 0n || this.dec ? q + 1n : q - 1n;
  }

  /** `MilliValue()`: thousandths, rounded up. Returned as a JS number (exact below 2^53). */
  milliValue(): number {
    return Number(this.scaledValue(-3));
  }

  /** `Value()`: whole units, rounded up like Go (`1500m` -> 2). */
  value(): number {
    return Number(this.scaledValue(0));
  }

  milliValueBig(): bigint {
    return this.scaledValue(-3);
  }

  valueBig(): bigint {
    return this.scaledValue(0);
  }

  /** `AsApproximateFloat64()`: mantissa times a power of ten, with Go's float rounding. */
  asApproximateFloat64(): number {
    const base = Number(this.unscaled);
    if (this.exp === 0) return base;
    return base * goPow10(this.exp);
  }

  /** The canonical form Go prints (`1300m`, `2Gi`, `1e3`, `0`), or the input when it was already canonical. */
  toString(): string {
    if (this.cached !== undefined) return this.cached;
    this.cached = this.canonical();
    return this.cached;
  }

  toJSON(): string {
    return this.toString();
  }

  private canonical(): string {
    if (this.isZero()) return '0';
    let format = this.format;
    let rounded = 0n;
    if (format === 'BinarySI') {
      const v = this.cmp(Quantity.fromInt(-1024)) > 0 && this.cmp(Quantity.fromInt(1024)) < 0;
      if (v) format = 'DecimalSI';
      else {
        const exact = this.exp >= 0 || this.unscaled % pow10(-this.exp) === 0n;
        if (!exact) format = 'DecimalSI';
        else rounded = this.scaledValue(0);
      }
    }
    if (format === 'BinarySI') {
      let amount = abs(rounded);
      let times = 0;
      while (amount >= 1024n && amount % 1024n === 0n) {
        amount /= 1024n;
        times++;
      }
      const n = rounded < 0n ? -amount : amount;
      return `${n}${BIN_EXP_SUFFIX.get(times * 10) ?? ''}`;
    }
    let amount = abs(this.unscaled);
    let exponent = this.exp;
    while (amount >= 10n && amount % 10n === 0n) {
      amount /= 10n;
      exponent++;
    }
    const m = ((exponent % 3) + 3) % 3;
    if (m !== 0) {
      amount *= pow10(m);
      exponent -= m;
    }
    const n = this.unscaled < 0n ? -amount : amount;
    if (format === 'DecimalExponent') return exponent === 0 ? `${n}` : `${n}e${exponent}`;
    // Go has no suffix beyond E (10^18): it silently prints the bare mantissa there.
    return `${n}${DEC_EXP_SUFFIX.get(exponent) ?? ''}`;
  }
}

/** Go's math.Pow10: the correctly rounded double for 10^n. */
function goPow10(n: number): number {
  if (n > 308) return Infinity;
  if (n < -323) return 0;
  return Number(`1e${n}`);
}

interface ParsedString {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Go's parseQuantityString, including its leniencies (`1.G`, a bare sign meaning zero). */
function splitQuantity(str: string): ParsedString | null {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end) {
    if (str[0] === '-') {
      positive = false;
      pos++;
    } else if (str[0] === '+') pos++;
  }
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
    if (str[i] === '0') pos++;
    else break;
  }
  let num = '';
  let i = pos;
  for (; ; i++) {
    if (i >= end) return { positive, value: str.slice(0, end), num: str.slice(pos, end), denom: '', suffix: '' };
    if (!isDigit(str[i])) break;
  }
  num = str.slice(pos, i);
  pos = i;
  if (num.length === 0) num = '0';
  let denom = '';
  if (pos < end && str[pos] === '.') {
    pos++;
    let j = pos;
    for (; ; j++) {
      if (j >= end) return { positive, value: str.slice(0, end), num, denom: str.slice(pos, end), suffix: '' };
      if (!isDigit(str[j])) break;
    }
    denom = str.slice(pos, j);
    pos = j;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  for (let k = pos; ; k++) {
    if (k >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart, end) };
    if (!'eEinumkKMGTP'.includes(str[k]!)) {
      pos = k;
      break;
    }
  }
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++;
  for (let k = pos; ; k++) {
    if (k >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart, end) };
    if (!isDigit(str[k])) break;
  }
  return null;
}

function interpretSuffix(s: string): { base: 10 | 2; exponent: number; format: QuantityFormat } | null {
  if (Object.hasOwn(DEC_SUFFIX_EXP, s)) return { base: 10, exponent: DEC_SUFFIX_EXP[s]!, format: 'DecimalSI' };
  if (Object.hasOwn(BIN_SUFFIX_EXP, s)) return { base: 2, exponent: BIN_SUFFIX_EXP[s]!, format: 'BinarySI' };
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E')) {
    const rest = s.slice(1);
    if (!/^[+-]?[0-9]+$/.test(rest)) return null;
    const big = BigInt(rest);
    if (!fitsInt64(big)) return null;
    // Go truncates the parsed int64 to int32.
    return { base: 10, exponent: Number(BigInt.asIntN(32, big)), format: 'DecimalExponent' };
  }
  return null;
}

/** Returns the Go error reason for a bad quantity, or the quantity. */
export function tryParseQuantity(str: string): Quantity | string {
  if (str.length === 0) return QUANTITY_FORMAT_ERROR;
  if (str === '0') return new Quantity(0n, 0, 'DecimalSI', false, str);
  const parts = splitQuantity(str);
  if (!parts) return QUANTITY_FORMAT_ERROR;
  const { positive, value, num, denom, suffix } = parts;
  const suf = interpretSuffix(suffix);
  if (!suf) return QUANTITY_SUFFIX_ERROR;
  const { base, exponent } = suf;
  let format = suf.format;

  let precision = 0;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc(Math.fround((exponent * 3) / 10)) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = num + denom;
      const v = BigInt(shifted);
      if (!fitsInt64(v)) return QUANTITY_NUMERIC_ERROR;
      const product = v * mantissa;
      if (fitsInt64(product)) {
        const result = positive ? product : -product;
        let canonical = false;
        if (format === 'BinarySI') canonical = exponent % 10 === 0 && (v & 7n) !== 0n;
        else canonical = scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return new Quantity(result, scale, format, false, canonical ? str : undefined);
      }
    }
  }

  // The arbitrary-precision path: too many digits, sub-nano values, or fractional binary values.
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return QUANTITY_NUMERIC_ERROR;
  const digits = (m[2] ?? '') + (m[3] ?? '');
  let unscaled = BigInt(digits === '' ? '0' : digits);
  let exp = -(m[3] ?? '').length;
  if (base === 10) exp += exponent;
  else unscaled *= 1n << BigInt(exponent);
  // Round non-zero values up (away from zero) to whole nano units: asking for a sliver gets a sliver.
  if (unscaled !== 0n) {
    if (exp < NANO) {
      const div = pow10(NANO - exp);
      const q = unscaled / div;
      unscaled = unscaled % div === 0n ? q : q + 1n;
    } else unscaled *= pow10(exp - NANO);
    exp = NANO;
  }
  if (format === 'BinarySI' && unscaled > INT64_MAX * pow10(-NANO)) unscaled = INT64_MAX * pow10(-NANO);
  if (format === 'BinarySI' && unscaled > 0n && unscaled < pow10(-NANO)) format = 'DecimalSI';
  return new Quantity(m[1] === '-' ? -unscaled : unscaled, exp, format, true);
}

/**
 * Parses a quantity as Kubernetes does (`resource.MustParse`); JSON numbers are read from their text.
 * Throws QuantityParseError with Go's message, e.g. `cannot parse 'abc': quantities must match ...`.
 */
export function parseQuantity(s: string | number): Quantity {
  const str = typeof s === 'number' ? String(s) : s;
  const q = tryParseQuantity(str);
  if (typeof q === 'string') throw new QuantityParseError(str, q);
  return q;
}

/**
 * The exact `MilliValue()` of a quantity written in one of the forms clusters report most (`16`,
 * `500m`, `64Gi`, `32186052Ki`, a non-negative JSON integer), without building a Quantity; null for
 * every other form, which callers then hand to `parseQuantity`.
 *
 * It answers only where the result is a safe integer and Go holds the value as an int64Amount (never
 * on the inf.Dec path): up to 15 digits, an optional `m`, `k`, `M`, `G`, `T`, `P`, `E`, `Ki`, `Mi`,
 * `Gi` or `Ti`. `Pi` and `Ei` are left out because Go parses even `0Pi` as an inf.Dec, which changes how
 * later sums round. So milli amounts from here can be added and subtracted as plain numbers and give the
 * same `MilliValue()` and `Value()` (rounded away from zero) as Quantity arithmetic on the parsed values.
 */
export function simpleMilliValue(raw: unknown): number | null {
  if (typeof raw === 'number') {
    if (!Number.isSafeInteger(raw) || raw < 0 || raw > 2 ** 43) return null;
    return raw === 0 ? 0 : raw * 1000;
  }
  if (typeof raw !== 'string') return null;
  const len = raw.length;
  let n = 0;
  let i = 0;
  for (; i < len; i++) {
    const d = raw.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    if (i === 15) return null;
    n = n * 10 + d;
  }
  if (i === 0) return null;
  let unit: number;
  switch (len - i) {
    case 0:
      unit = 1;
      break;
    case 1:
      switch (raw.charCodeAt(i)) {
        case 109: // m
          return n;
        case 107: // k
          unit = 1e3;
          break;
        case 77: // M
          unit = 1e6;
          break;
        case 71: // G
          unit = 1e9;
          break;
        case 84: // T
          unit = 1e12;
          break;
        case 80: // P
          unit = 1e15;
          break;
        case 69: // E
          unit = 1e18;
          break;
        default:
          return null;
      }
      break;
    case 2:
      if (raw.charCodeAt(i + 1) !== 105) return null; // i
      switch (raw.charCodeAt(i)) {
        case 75: // Ki
          unit = 2 ** 10;
          break;
        case 77: // Mi
          unit = 2 ** 20;
          break;
        case 71: // Gi
          unit = 2 ** 30;
          break;
        case 84: // Ti
          unit = 2 ** 40;
          break;
        default:
          return null;
      }
      break;
    default:
      return null;
  }
  // Exact whenever the true product is a safe integer; a product past 2^53 cannot round below it.
  const milli = n * unit * 1000;
  return Number.isSafeInteger(milli) ? milli : null;
}

/** Numeric equality, the way Kubernetes compares resource lists. */
export function quantitiesEqual(a: string | number, b: string | number): boolean {
  return parseQuantity(a).equal(parseQuantity(b));
}
