// The REST client's watch against a server that never answers (issue 33: a frozen member holds nothing forever).
import { createServer, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { RestClient, watchSilenceMs } from '../../src/kube/rest.js';
import { loopbackKubeConfig } from './limiter-helpers.js';

let server: Server | undefined;
const open: ServerResponse[] = [];

afterEach(async () => {
  for (const r of open.splice(0)) r.destroy();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** An HTTP server that takes every request and answers `silent` ones with headers and then nothing, forever. */
async function silentServer(): Promise<RestClient> {
  server = createServer((_req, res) => {
    open.push(res);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return new RestClient(loopbackKubeConfig(server));
}

describe('RestClient.watch', () => {
  it('gives up a watch that stays silent past its timeoutSeconds and a grace, instead of waiting forever', async () => {
    const c = await silentServer();
    await expect(c.watch('/api/v1/configmaps', { timeoutSeconds: 1 }, () => undefined)).rejects.toThrow('watch /api/v1/configmaps: nothing from the server for 2000 ms, past its timeoutSeconds; the connection is given up');
  });

  it('grants a tenth of the timeout as grace, between 1 and 30 seconds; no timeoutSeconds, no deadline', () => {
    expect(watchSilenceMs(300)).toBe(330_000);
    expect(watchSilenceMs(1800)).toBe(1_830_000);
    expect(watchSilenceMs(5)).toBe(6_000);
    expect(watchSilenceMs(undefined)).toBeUndefined();
    expect(watchSilenceMs(0)).toBeUndefined();
  });
});

describe('RestClient identity', () => {
  it('names itself in every request and is the field manager of its writes unless the caller names one', async () => {
    const { okServer } = await import('./limiter-helpers.js');
    const { VERSION } = await import('../../src/version.js');
    const { requests, server, kc } = await okServer();
    try {
      const rest = new RestClient(kc);
      await rest.request('GET', '/api/v1/namespaces');
      await rest.request('POST', '/api/v1/namespaces', { body: {} });
      await rest.request('PUT', '/api/v1/namespaces/a', { body: {} });
      await rest.request('PATCH', '/api/v1/namespaces/a', { body: {}, query: { fieldManager: 'karmada-lite-join' }, headers: { 'content-type': 'application/apply-patch+yaml' } });
      await rest.request('DELETE', '/api/v1/namespaces/a');
      rest.close();
      expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
        'GET /api/v1/namespaces',
        'POST /api/v1/namespaces?fieldManager=karmada-lite',
        'PUT /api/v1/namespaces/a?fieldManager=karmada-lite',
        'PATCH /api/v1/namespaces/a?fieldManager=karmada-lite-join',
        'DELETE /api/v1/namespaces/a',
      ]);
      // client-go's shape, which audit logs and apiserver metrics group clients by
      expect(new Set(requests.map((r) => r.userAgent))).toEqual(new Set([`karmada-lite/v${VERSION} (${process.platform}/${process.arch})`]));
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
