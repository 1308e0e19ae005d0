// `karmada-lite logs` through a fake host's cluster proxy: the request it makes and that lines come as they are sent.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ServerResponse } from 'node:http';
import { main } from '../../src/cli/main.js';
import { runCli } from './run-cli.js';
import { startFake, type Fake } from './fleet-fake.js';
import { waitFor } from '../integration/k8s-env.js';

let fake: Fake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('karmada-lite logs', () => {
  it('streams the member\'s log through the cluster proxy: the first line is printed before the member sends the second', async () => {
    let held: ServerResponse | undefined;
    fake = await startFake(
      { deployments: [] },
      {
        member1: {
          deployments: [],
          pods: { 'web-1': { containers: ['web', 'sidecar'] } },
          logs: (res) => {
            res.writeHead(200, { 'content-type': 'text/plain' });
            res.write('line 1\n');
            held = res;
          },
        },
      },
    );
    let stdout = '';
    let stderr = '';
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((stdout += Buffer.from(s).toString()), true));
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((stderr += String(s)), true));
    try {
      const run = main(['logs', 'pod/web-1', '-C', 'member1', '-f', '--tail', '5', '--kubeconfig', fake.kubeconfig]);
      await waitFor('the first line', async () => (stdout.includes('line 1\n') ? true : undefined));
      expect(stdout).toBe('line 1\n');
      held!.end('line 2\n');
      expect(await run).toBe(0);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    expect(stdout).toBe('line 1\nline 2\n');
    expect(stderr).toBe('Defaulted container "web" out of: web, sidecar\n');
    const log = fake.requests.find((q) => q.url.includes('/log'))!;
    expect(log.url.split('?')[0]).toBe('/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy/api/v1/namespaces/default/pods/web-1/log');
    expect(new URL(log.url, 'http://x').searchParams.toString()).toBe('container=web&follow=true&tailLines=5');
  });

  it('needs -C; an unknown cluster or pod is the server\'s NotFound, exit 1', async () => {
    fake = await startFake({ deployments: [] }, { member1: { deployments: [], pods: {} } });
    const kc = ['--kubeconfig', fake.kubeconfig];
    expect(await runCli(['logs', 'web-1', ...kc])).toMatchObject({ code: 2, stderr: expect.stringContaining('must specify a cluster') });
    expect(await runCli(['logs', 'web-1', '-C', 'member9', ...kc])).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): clusters.cluster.karmada.io "member9" not found\n' });
    expect(await runCli(['logs', 'web-1', '-C', 'member1', '-c', 'web', ...kc])).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): pods "web-1" not found\n' });
    expect((await runCli(['logs', 'deploy/web', '-C', 'member1', ...kc])).code).toBe(2);
  });
});
