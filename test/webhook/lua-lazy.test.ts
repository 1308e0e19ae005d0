// The webhook command's review context carries no Lua compiler: the first RIC reviewed loads the Lua VM
// (src/webhook/review.ts). Its scripts must be checked as before, with gopher-lua's error text.
import { describe, expect, it } from 'vitest';
import { review } from '../../src/webhook/review.js';
import { toServerOptions } from '../../src/cli/commands/webhook.js';

const ric = (name: string, luaScript: string) => ({
  apiVersion: 'config.karmada.io/v1alpha1',
  kind: 'ResourceInterpreterCustomization',
  metadata: { name },
  spec: { target: { apiVersion: 'apps/v1', kind: 'Deployment' }, customizations: { healthInterpretation: { luaScript } } },
});
const body = (object: unknown) =>
  JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u1', operation: 'CREATE', kind: { group: 'config.karmada.io', version: 'v1alpha1', kind: 'ResourceInterpreterCustomization' }, object } });

describe('webhook: the Lua compile check loaded on the first RIC', () => {
  it("denies a script that does not compile and admits one that does, through the command's own context", async () => {
    const opts = await toServerOptions({ certFile: 'tls.crt', keyFile: 'tls.key', port: '0', bindAddress: '127.0.0.1', schema: 'decode', logLevel: 'error', tlsMinVersion: 'TLSv1.3', certReloadInterval: '1000', existingRics: [] });
    expect(opts.review.compileLua).toBeUndefined();
    const ask = (object: unknown) => review({ path: '/validate-resourceinterpretercustomization', contentType: 'application/json', body: body(object) }, opts.review);
    const [broken, fine] = await Promise.all([ask(ric('broken', 'function InterpretHealth(o)\n  return o.status ~=\nend')), ask(ric('fine', 'function InterpretHealth(o)\n  return o.status ~= nil\nend'))]);
    expect(broken.verdict).toBe('denied');
    expect(broken.message).toMatch(/^InterpreterOperation\(InterpretHealth\) Lua script error: <string> line:3\(column:\d+\) near 'end':\s+syntax error\s*$/);
    expect(fine.verdict).toBe('allowed');
  });
});
