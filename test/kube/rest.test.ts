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
