// Runs every case in conformance/interpreter-webhook/ through the caller's side of the protocol
// (src/interpreter/webhook/context.ts) with an in-memory webhook: the request it receives is checked,
// the case's answer returned.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { callInterpreterWebhook, type InterpreterRequestInput, type ResourceInterpreterContext } from '../../src/interpreter/webhook/context.js';

const DIR = join(__dirname, '../../conformance/interpreter-webhook');

interface Case {
  file: string;
  name: string;
  hook?: string;
  input: InterpreterRequestInput;
  request?: unknown;
  response: unknown;
  result?: unknown;
  error?: string;
}

function loadCases(): Case[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((file) => (parse(readFileSync(join(DIR, file), 'utf8'), { merge: true }) as { cases: Case[] }).cases.map((c) => ({ ...c, file })));
}

/** The answer's body with the patch conveniences encoded as the wire has them. */
function wireResponse(body: unknown): unknown {
  const copy = structuredClone(body) as { response?: Record<string, unknown> };
  const r = copy?.response;
  if (r && typeof r === 'object') {
    if ('patchOps' in r) r.patch = Buffer.from(JSON.stringify(r.patchOps)).toString('base64');
    if ('patchText' in r) r.patch = Buffer.from(String(r.patchText)).toString('base64');
    delete r.patchOps;
    delete r.patchText;
  }
  return copy;
}

const cases = loadCases();

describe('interpreter webhook conformance corpus', () => {
  it('covers every operation with unique case names', () => {
    const names = cases.map((c) => c.name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    const ops = new Set(cases.map((c) => c.input.operation));
    expect([...ops].sort()).toEqual(['AggregateStatus', 'InterpretComponent', 'InterpretDependency', 'InterpretHealth', 'InterpretReplica', 'InterpretStatus', 'Retain', 'ReviseReplica']);
  });

  it.each(cases.map((c) => [`${c.file}: ${c.name}`, c] as const))('%s', async (_label, c) => {
    const sent: ResourceInterpreterContext[] = [];
    const client = {
      call: async (ctx: ResourceInterpreterContext) => {
        sent.push(JSON.parse(JSON.stringify(ctx)) as ResourceInterpreterContext);
        return wireResponse(c.response);
      },
    };
    const input = { ...c.input, uid: 'case-uid' };
    const run = callInterpreterWebhook(client, c.hook ?? 'examples/workloads.example.com', input);
    if (c.error !== undefined) await expect(run.then(() => "succeeded", (e: Error) => e.message)).resolves.toBe(c.error);
    else expect(await run).toEqual(c.result);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.apiVersion).toBe('config.karmada.io/v1alpha1');
    expect(sent[0]!.kind).toBe('ResourceInterpreterContext');
    if (c.request !== undefined) expect(sent[0]!.request).toEqual(c.request);
    // The caller's object is never changed by a patch (the result is a new object).
    expect(input.object).toEqual(c.input.object);
  });
});
