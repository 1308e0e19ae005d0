// The query-string selectors of a list (`labelSelector=app=web,tier in (a,b)`, `fieldSelector=metadata.name=x`)
// parsed into the scheduler's matchers, so a label requirement means the same thing everywhere.
import { compileLabelSelector, type LabelMatcher } from '../scheduler/selector.js';

export class SelectorError extends Error {}

interface Requirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

/** Splits on commas outside parentheses: `a in (x,y),b` is two requirements. */
function splitTerms(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(s.slice(start, i));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out.map((t) => t.trim()).filter((t) => t !== '');
}

function parseTerm(term: string, selector: string): Requirement {
  const set = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(term);
  if (set) {
    const values = set[3]!.split(',').map((v) => v.trim());
    return { key: set[1]!, operator: set[2] === 'in' ? 'In' : 'NotIn', values };
  }
  const eq = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
  if (eq) return { key: eq[1]!, operator: eq[2] === '!=' ? 'NotIn' : 'In', values: [eq[3]!] };
  if (/^![^=!\s()]+$/.test(term)) return { key: term.slice(1), operator: 'DoesNotExist' };
  if (/^[^=!\s()]+$/.test(term)) return { key: term, operator: 'Exists' };
  throw new SelectorError(`unable to parse requirement: "${term}" in labelSelector "${selector}"`);
}

/** Kubernetes' selector grammar (=, ==, !=, in, notin, key, !key); an empty selector matches everything. */
export function parseLabelSelector(s: string | null | undefined): LabelMatcher | undefined {
  if (!s || !s.trim()) return undefined;
  const matchExpressions = splitTerms(s).map((t) => parseTerm(t, s));
  return compileLabelSelector({ matchExpressions });
}

export interface FieldSelector {
  name?: { value: string; equal: boolean };
  namespace?: { value: string; equal: boolean };
}

/** Only metadata.name and metadata.namespace, the two fields the cache keeps decoded (Karmada's cache too). */
export function parseFieldSelector(s: string | null | undefined): FieldSelector {
  const out: FieldSelector = {};
  if (!s || !s.trim()) return out;
  for (const term of splitTerms(s)) {
    const m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
    if (!m) throw new SelectorError(`invalid selector: '${term}'; can't understand '${term}'`);
    const field = m[1] === 'metadata.name' ? 'name' : m[1] === 'metadata.namespace' ? 'namespace' : undefined;
    if (!field) throw new SelectorError(`field label not supported: ${m[1]} (the cache selects on metadata.name and metadata.namespace only)`);
    out[field] = { value: m[3]!, equal: m[2] !== '!=' };
  }
  return out;
}

export function fieldMatches(f: FieldSelector, namespace: string, name: string): boolean {
  if (f.name && (f.name.value === name) !== f.name.equal) return false;
  if (f.namespace && (f.namespace.value === namespace) !== f.namespace.equal) return false;
  return true;
}
