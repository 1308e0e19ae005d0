/**
 * The subset of Kubernetes JSONPath that state preservation rules use (`{.status.replicas}`,
 * `{.items[0].name}`, `{.metadata.labels['app.kubernetes.io/name']}`), printed the way kubectl's
 * jsonpath prints one value: strings as they are, everything else as JSON. A missing key is an error,
 * as with Karmada's strict evaluation (missing keys not allowed).
 */
import { isObject } from '../json/value.js';

export function evalJsonPath(expr: string, root: unknown): string {
  const m = /^\s*\{\s*(.*?)\s*\}\s*$/.exec(expr);
  if (!m) throw new Error(`jsonPath ${expr} must be one {...} expression such as {.replicas}`);
  const body = m[1]!;
  let cur: unknown = root;
  // One step: .name, ['quoted name'] or [index]; `{.}` or `{@}` is the root itself.
  const step = /\.([A-Za-z0-9_-]+)|\[\s*'([^']*)'\s*\]|\[\s*"([^"]*)"\s*\]|\[\s*(-?\d+)\s*\]/y;
  let pos = body.startsWith('@') ? 1 : 0;
  if (body === '.' || body === '@') pos = body.length;
  while (pos < body.length) {
    step.lastIndex = pos;
    const s = step.exec(body);
    if (!s) throw new Error(`jsonPath ${expr}: unsupported syntax at "${body.slice(pos)}"; use .field, ['key'] or [index]`);
    pos = step.lastIndex;
    const index = s[4];
    if (index !== undefined) {
      if (!Array.isArray(cur)) throw new Error(`jsonPath ${expr}: ${body.slice(0, pos)} is not an array`);
      const i = Number(index) < 0 ? cur.length + Number(index) : Number(index);
      if (i < 0 || i >= cur.length) throw new Error(`jsonPath ${expr}: array index out of bounds: index ${index}, length ${cur.length}`);
      cur = cur[i];
      continue;
    }
    const key = s[1] ?? s[2] ?? s[3]!;
    if (!isObject(cur) || !Object.prototype.hasOwnProperty.call(cur, key)) {
      throw new Error(`jsonPath ${expr}: ${key} is not found`);
    }
    cur = cur[key];
  }
  return typeof cur === 'string' ? cur : JSON.stringify(cur);
}
