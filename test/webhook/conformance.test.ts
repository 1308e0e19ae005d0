// Runs every case in conformance/webhook/ against the in-process AdmissionReview handler.
import { describe, expect, it } from 'vitest';
import { caseBody, loadCases, matchUuids, patchedObject, runCase, type ResponseShape } from './conformance-lib.js';

const cases = loadCases();

describe('webhook conformance corpus', () => {
  it('has at least 100 cases with unique names', () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
    const names = cases.map((c) => c.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });

  it.each(cases.map((c, i) => [`${c.file}: ${c.name}`, c, i] as const))('%s', async (_label, c, i) => {
    const outcome = await runCase(c, i);
    const body = outcome.body as { apiVersion?: string; kind?: string; response: ResponseShape };
    const resp = body.response;
    const e = c.expect;
    expect(resp.allowed, 'allowed').toBe(e.allowed);
    expect(resp.status?.code, 'status.code').toBe(e.code);
    expect(resp.status?.metadata, 'status.metadata').toEqual({});
    if (e.malformed) {
      expect(body.apiVersion, 'transport errors carry no apiVersion').toBeUndefined();
      expect(resp.uid).toBe('');
    } else if (c.request) {
      expect(body.apiVersion).toBe(c.reviewVersion ?? 'admission.k8s.io/v1');
      expect(body.kind).toBe('AdmissionReview');
      expect(resp.uid).toBe(caseBody(c, i).uid);
    }
    if (e.reason !== undefined) expect(resp.status?.reason ?? null, 'reason').toBe(e.reason);
    else if (e.code === 403) expect(resp.status?.reason).toBe('Forbidden');
    else expect(resp.status?.reason, 'only denials carry a reason').toBeUndefined();
    const message = resp.status?.message;
    if (e.allowed && e.message === undefined) expect(message).toBeUndefined();
    if (e.message !== undefined) expect(message).toBe(e.message);
    if (e.messagePrefix !== undefined) expect(message?.startsWith(e.messagePrefix), `${message}\n  should start with\n${e.messagePrefix}`).toBe(true);
    if (e.messageSuffix !== undefined) expect(message?.endsWith(e.messageSuffix), `${message}\n  should end with\n${e.messageSuffix}`).toBe(true);
    for (const part of e.messageContains ?? []) expect(message).toContain(part);
    if (e.messageErrors !== undefined) {
      if (e.messageErrors === 1) expect(message?.startsWith('[')).toBe(false);
      else expect(message?.startsWith('[')).toBe(true);
    }
    if (e.noPatch) {
      expect(resp.patch).toBeUndefined();
      expect(resp.patchType).toBeUndefined();
    }
    if (e.patched !== undefined) {
      if (resp.patch) expect(resp.patchType).toBe('JSONPatch');
      const after = patchedObject(c, resp);
      expect(matchUuids(e.patched, after)).toEqual(e.patched);
    }
    if (e.warnings !== undefined) expect(resp.warnings ?? []).toEqual(e.warnings);
    else expect(resp.warnings).toBeUndefined();
  });
});
