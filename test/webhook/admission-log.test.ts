// The webhook's admission log levels and controller-runtime's webhook metrics, on the real HTTPS server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { WebhookServer } from '../../src/webhook/server.js';
import { createLogger } from '../../src/runtime/log.js';
import { makePki, type TestPki } from './certs.js';

let pki: TestPki;
let server: WebhookServer;
let port: number;
const lines: Record<string, unknown>[] = [];

function send(path: string, body?: string, method = 'POST'): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = body === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) };
    const req = httpsRequest({ host: '127.0.0.1', port, path, method, ca: pki.ca, agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const pp = (uid: string, spec: Record<string, unknown>) =>
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      operation: 'CREATE',
      namespace: 'default',
      object: { apiVersion: 'policy.karmada.io/v1alpha1', kind: 'PropagationPolicy', metadata: { name: `web-${uid}`, namespace: 'default', labels: { 'propagationpolicy.karmada.io/permanent-id': 'x' } }, spec },
    },
  });
const fine = { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default' }] };
const conflicting = { ...fine, suspension: { dispatching: true, dispatchingOnClusters: { clusterNames: ['m2'] } } };

beforeAll(async () => {
  pki = makePki();
  const certFile = join(pki.dir, 'tls.crt');
  const keyFile = join(pki.dir, 'tls.key');
  pki.issue(certFile, keyFile, 'admission-log');
  server = new WebhookServer({ certFile, keyFile, port: 0, bindAddress: '127.0.0.1', logger: createLogger({ level: 'debug', write: (l) => void lines.push(JSON.parse(l) as Record<string, unknown>) }) });
  port = (await server.start()).port;
});

afterAll(async () => {
  await server?.stop();
});

describe('admission logs: one info line per refusal, allowed answers at debug', () => {
  it('logs an allowed or patched review at debug and a denial at info, with kind, name and why', async () => {
    for (let i = 0; i < 5; i++) await send('/validate-propagationpolicy', pp(`ok-${i}`, fine));
    await send('/mutate-propagationpolicy', pp('patch', fine));
    await send('/validate-propagationpolicy', pp('no', conflicting));
    const admission = lines.filter((l) => l.msg === 'admission');
    expect(admission.filter((l) => l.verdict === 'allowed' || l.verdict === 'patched').map((l) => l.level)).toEqual(['debug', 'debug', 'debug', 'debug', 'debug', 'debug']);
    const info = admission.filter((l) => l.level === 'info');
    expect(info).toHaveLength(1);
    expect(info[0]).toMatchObject({ verdict: 'denied', kind: 'PropagationPolicy', name: 'web-no', namespace: 'default', code: 403 });
    expect(info[0]!.message).toMatch(/suspension dispatching cannot co-exist/);
  });

  it("exports controller-runtime's webhook metrics per path: requests by HTTP code, latency, in flight", async () => {
    await send('/validate-propagationpolicy', pp('m', fine));
    await send('/validate-propagationpolicy', undefined, 'GET');
    const text = (await send('/metrics', undefined, 'GET')).text;
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}+.]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('controller_runtime_webhook_requests_total{webhook="/validate-propagationpolicy",code="200"}')).toBeGreaterThanOrEqual(7);
    expect(value('controller_runtime_webhook_requests_total{webhook="/validate-propagationpolicy",code="405"}')).toBe(1);
    expect(value('controller_runtime_webhook_latency_seconds_count{webhook="/mutate-propagationpolicy"}')).toBe(1);
    expect(value('controller_runtime_webhook_latency_seconds_bucket{le="1e-8",webhook="/mutate-propagationpolicy"}')).toBe(0);
    expect(value('controller_runtime_webhook_requests_in_flight{webhook="/validate-propagationpolicy"}')).toBe(0);
  });
});
