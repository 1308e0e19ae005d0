/**
 * Karmada's (k8s.io/apimachinery's) field-error texts, reproduced so that a message from karmada-lite reads
 * exactly like the one Karmada prints for the same mistake: scripts and users grep for these strings.
 */
import type { FieldError } from './schema.js';

export type { FieldError };

/** How a bad value is printed. Go prints numbers and bools bare, plain strings %q-quoted, everything else as JSON. */
export type BadValue =
  | { scalar: number | boolean }
  | { str: string }
  | { json: unknown };

export const scalar = (v: number | boolean): BadValue => ({ scalar: v });
export const str = (v: string): BadValue => ({ str: v });
export const json = (v: unknown): BadValue => ({ json: v });

export function renderBadValue(v: BadValue): string {
  if ('scalar' in v) return typeof v.scalar === 'number' ? goNumber(v.scalar) : String(v.scalar);
  if ('str' in v) return goQuote(v.str);
  return goJSON(v.json);
}

/** `path: Invalid value: <v>: detail` */
export function invalid(path: string, value: BadValue, detail: string): FieldError {
  return { path, message: `Invalid value: ${renderBadValue(value)}: ${detail}` };
}

/** `path: Required value: detail` */
export function required(path: string, detail: string): FieldError {
  return { path, message: detail ? `Required value: ${detail}` : 'Required value' };
}

/** `path: Unsupported value: "Lt": supported values: "", "Exists"` */
export function notSupported(path: string, value: BadValue, supported: string[]): FieldError {
  return { path, message: `Unsupported value: ${renderBadValue(value)}: supported values: ${supported.map(goQuote).join(', ')}` };
}

/** `path: Too long: may not be more than N bytes` */
export function tooLong(path: string, max: number): FieldError {
  return { path, message: `Too long: may not be more than ${max} bytes` };
}

/** An error that is not about one field (`the schedulerName should not be updated`). */
export function plain(message: string): FieldError {
  return { path: '', message };
}

export function errorText(e: FieldError): string {
  return e.path ? `${e.path}: ${e.message}` : e.message;
}

/**
 * apimachinery's aggregate: one error prints alone, several as `[e1, e2]`; identical texts collapse, the
 * first occurrence keeping its place.
 */
export function aggregate(errors: FieldError[]): string {
  const texts = [...new Set(errors.map(errorText))];
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}

/** Go's %v of a float64/int: integers without a fraction, large or tiny ones in e-notation with a signed exponent. */
export function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  return String(n).replace(/e([+-])?(\d)$/, (_m, sign: string | undefined, d: string) => `e${sign ?? '+'}0${d}`).replace(/e(\d)/, 'e+$1');
}

const SHORT_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '\\': '\\\\', '"': '\\"' };

/** Go's strconv.Quote: printable runes stay, control characters become \n, \x01, \u0085 ... */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const short = SHORT_ESCAPES[ch];
    if (short) {
      out += short;
      continue;
    }
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if ((cp >= 0x80 && cp < 0xa0) || cp === 0xad || cp === 0x2028 || cp === 0x2029 || (cp >= 0xd800 && cp < 0xe000)) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + '"';
}

/** Go's encoding/json output: compact, with <, >, & and the JS line separators escaped as Go does. */
export function goJSON(v: unknown): string {
  const s = JSON.stringify(v === undefined ? null : v);
  return s.replace(/[<>&\u2028\u2029]|\\[bf]/g, (m) => {
    if (m === '\\b') return '\\u0008';
    if (m === '\\f') return '\\u000c';
    return `\\u${m.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
