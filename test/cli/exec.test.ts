// `karmada-lite exec` against a fake host whose cluster proxy accepts the WebSocket upgrade as a member would.
import { afterEach, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { runCli } from './run-cli.js';
import { startFake, type Fake } from './fleet-fake.js';
import { FleetClient } from '../../src/cli/fleet/client.js';
import { execInPod, exitOf } from '../../src/cli/fleet/exec.js';
import { loadKubeConfig } from '../../src/cli/kubeconfig.js';

let fake: Fake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const frame = (channel: number, text: string) => Buffer.concat([Buffer.from([channel]), Buffer.from(text)]);
const pod = { deployments: [], pods: { 'web-1': { containers: ['web'] } } };

/** member1's pod web-1 runs `exec` for every exec; member2's has no node (its upgrade is refused). */
const startExecFake = async (exec: (ws: import('ws').WebSocket) => void) => (fake = await startFake({ deployments: [] }, { member1: { ...pod, exec }, member2: pod }));

const exitStatus = (code: number) => JSON.stringify({ status: 'Failure', reason: 'NonZeroExitCode', message: `command terminated with non-zero exit code: ${code}`, details: { causes: [{ reason: 'ExitCode', message: String(code) }] } });

describe('karmada-lite exec', () => {
  it('speaks v5.channel.k8s.io through the cluster proxy: stdin on channel 0 and its close, output on 1 and 2, the exit code from 3', async () => {
    const received: string[] = [];
    await startExecFake((ws) => {
      ws.send(frame(1, 'out\n'));
      ws.send(frame(2, 'err\n'));
      ws.on('message', (data: Buffer) => {
        received.push(`${data[0]}:${data.subarray(1).toString()}`);
        // 255 0: the client has no more stdin; the command then exits 3.
        if (data[0] === 255) {
          ws.send(frame(3, exitStatus(3)));
          ws.close();
        }
      });
    });
    const client = new FleetClient(await loadKubeConfig(fake!.kubeconfig, undefined)).forCluster('member1');
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (d) => (out += d));
    stderr.on('data', (d) => (err += d));
    const run = execInPod(client, '/api/v1/namespaces/default/pods/web-1/exec', { command: ['sh', '-c', 'cat; exit 3'], container: 'web', stdin: true, stdout: true, stderr: true }, { stdin, stdout, stderr });
    stdin.write('hello');
    setImmediate(() => stdin.end());
    expect(await run).toEqual({ code: 3, message: 'command terminated with exit code 3' });
    expect(out).toBe('out\n');
    expect(err).toBe('err\n');
    expect(received).toEqual(['0:hello', `255:${String.fromCharCode(0)}`]);
    const up = fake!.requests.find((q) => q.url.includes('/exec'))!;
    expect(up.url.split('?')[0]).toBe('/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy/api/v1/namespaces/default/pods/web-1/exec');
    expect(new URL(up.url, 'http://x').searchParams.getAll('command')).toEqual(['sh', '-c', 'cat; exit 3']);
    expect(up.accept).toBe('v5.channel.k8s.io,v4.channel.k8s.io');
    expect(up.authorization).toBe('Bearer fake-token');
  });

  it('the command\'s exit status is the CLI\'s; a refused upgrade is the member\'s own error', async () => {
    await startExecFake((ws) => {
      ws.send(frame(1, 'hi\n'));
      ws.send(frame(3, exitStatus(7)));
      ws.close();
    });
    const kc = ['--kubeconfig', fake!.kubeconfig];
    expect(await runCli(['exec', 'web-1', '-C', 'member1', ...kc, '--', 'false'])).toMatchObject({ code: 7, stdout: 'hi\n', stderr: 'command terminated with exit code 7\n' });
    expect(await runCli(['exec', 'web-1', '-C', 'member2', ...kc, '--', 'ls'])).toMatchObject({ code: 1, stderr: 'Error from server (BadRequest): pod web-1 does not have a host assigned\n' });
    expect(await runCli(['exec', 'web-1', '-s', 'members', ...kc, '--', 'ls'])).toMatchObject({ code: 2, stderr: expect.stringContaining('must specify a member cluster') });
  });

  it('exitOf reads the Status of channel 3', () => {
    expect(exitOf({ status: 'Success' })).toEqual({ code: 0 });
    expect(exitOf({ status: 'Failure', message: 'container not found ("x")' })).toEqual({ code: 1, message: 'container not found ("x")' });
  });
});
