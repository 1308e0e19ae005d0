// Loads conformance/webhook/*.yaml and runs one case against the in-process review handler.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { review, MAX_BODY_BYTES, type ReviewContext, type ReviewOutcome } from '../../src/webhook/review.js';
import { applyPatch, type PatchOp } from '../../src/json/jsonpatch.js';
import { luaCompile } from '../../src/validation/lua-compile.js';
import type { FeatureGates } from '../../src/validation/binding.js';

export const conformanceDir = join(import.meta.dirname, '..', '..', 'conformance', 'webhook');

export interface CaseExpect {
  allowed: boolean;
  code: number;
  reason?: string | null;
  message?: string;
  messagePrefix?: string;
  messageSuffix?: string;
  messageContains?: string[];
  messageErrors?: number;
  patched?: unknown;
  noPatch?: boolean;
  warnings?: string[];
  malformed?: boolean;
  httpStatus?: number;
}

export interface ConformanceCase {
  name: string;
  source?: string;
  path: string;
  reviewVersion?: string;
  request?: Record<string, unknown>;
  http?: { contentType?: string | null; body?: string; bodyJson?: unknown; bodyBytes?: number };
  context?: { featureGates?: FeatureGates; existingRics?: Record<string, unknown>[]; schema?: 'decode' | 'full'; allowNoExecuteTaintPolicy?: boolean };
  expect: CaseExpect;
  file: string;
}

export function loadCases(): ConformanceCase[] {
  const out: ConformanceCase[] = [];
  for (const f of readdirSync(conformanceDir).filter((x) => x.endsWith('.yaml')).sort()) {
    const doc = parse(readFileSync(join(conformanceDir, f), 'utf8'), { merge: true }) as { cases: ConformanceCase[] };
    for (const c of doc.cases) out.push({ ...c, file: f });
  }
  return out;
}

/** `"<repeat N c>"` stands for the character c repeated N times: big values without big fixture files. */
export function expandRepeats(v: unknown): unknown {
  if (typeof v === 'string') {
    const m = /^<repeat (\d+) (.)>$/.exec(v);
    return m ? m[2]!.repeat(Number(m[1])) : v;
  }
  if (Array.isArray(v)) return v.map(expandRepeats);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expandRepeats(x)]));
  return v;
}

/** The AdmissionReview body a case stands for; request-form cases get a uid and request.kind filled in. */
export function caseBody(c: ConformanceCase, index: number): { contentType?: string; body: string; tooLarge: boolean; uid?: string } {
  if (c.http) {
    const contentType = c.http.contentType === null ? undefined : (c.http.contentType ?? 'application/json');
    if (c.http.bodyBytes !== undefined) {
      return { contentType, body: c.http.bodyBytes > MAX_BODY_BYTES ? '' : 'x'.repeat(c.http.bodyBytes), tooLarge: c.http.bodyBytes > MAX_BODY_BYTES };
    }
    const body = c.http.bodyJson !== undefined ? JSON.stringify(c.http.bodyJson) : (c.http.body ?? '');
    return { contentType, body, tooLarge: false };
  }
  const req = expandRepeats({ ...c.request }) as Record<string, unknown>;
  const obj = req.object as { apiVersion?: string; kind?: string } | undefined;
  const uid = (req.uid as string | undefined) ?? `uid-${index}`;
  req.uid = uid;
  if (req.kind === undefined && obj && typeof obj.apiVersion === 'string') {
    const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
    req.kind = { group, version, kind: obj.kind };
  }
  const reviewBody = { apiVersion: c.reviewVersion ?? 'admission.k8s.io/v1', kind: 'AdmissionReview', request: req };
  return { contentType: 'application/json', body: JSON.stringify(reviewBody), tooLarge: false, uid };
}

export function caseContext(c: ConformanceCase): ReviewContext {
  return {
    gates: c.context?.featureGates,
    listRics: () => c.context?.existingRics ?? [],
    compileLua: luaCompile,
    schema: c.context?.schema,
    allowNoExecuteTaintPolicy: c.context?.allowNoExecuteTaintPolicy,
  };
}

export async function runCase(c: ConformanceCase, index: number): Promise<ReviewOutcome> {
  const b = caseBody(c, index);
  return review({ path: c.path, contentType: b.contentType, body: b.body, tooLarge: b.tooLarge }, caseContext(c));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Replaces actual UUIDs where the expectation says `<uuid>`, so that toEqual can compare the rest. */
export function matchUuids(expected: unknown, actual: unknown): unknown {
  if (expected === '<uuid>' && typeof actual === 'string' && UUID.test(actual)) return '<uuid>';
  if (Array.isArray(expected) && Array.isArray(actual)) return actual.map((a, i) => matchUuids(expected[i], a));
  if (expected && actual && typeof expected === 'object' && typeof actual === 'object' && !Array.isArray(actual)) {
    return Object.fromEntries(Object.entries(actual as Record<string, unknown>).map(([k, v]) => [k, matchUuids((expected as Record<string, unknown>)[k], v)]));
  }
  return actual;
}

export interface ResponseShape {
  uid?: string;
  allowed?: boolean;
  status?: { code?: number; reason?: string; message?: string; metadata?: unknown };
  patch?: string;
  patchType?: string;
  warnings?: string[];
}

export function decodePatch(resp: ResponseShape): PatchOp[] | undefined {
  return resp.patch ? (JSON.parse(Buffer.from(resp.patch, 'base64').toString('utf8')) as PatchOp[]) : undefined;
}

export function patchedObject(c: ConformanceCase, resp: ResponseShape): unknown {
  const ops = decodePatch(resp) ?? [];
  return applyPatch(expandRepeats(c.request?.object), ops);
}
