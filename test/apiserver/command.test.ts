// `karmada-lite apiserver` and `controller --aggregated-apiserver`: usage errors exit 2 naming the flag,
// --help teaches with examples.
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';

describe('karmada-lite apiserver', () => {
  it('documents the served paths, the request-header flags and examples in --help', async () => {
    const r = await runCli(['apiserver', '--help']);
    expect(r.code).toBe(0);
    for (const s of ['--tls-cert-file', '--requestheader-client-ca-file', '--requestheader-allowed-names', '--authorization-webhook-cache-authorized-ttl', 'clusters/NAME/proxy/PATH', 'Examples:', 'karmada-lite apiserver --kubeconfig']) {
      expect(r.stdout).toContain(s);
    }
  });

  it('refuses a missing certificate flag and a bad port or TTL with exit 2, naming the flag', async () => {
    expect((await runCli(['apiserver'])).code).toBe(2);
    const port = await runCli(['apiserver', '--tls-cert-file', 'a', '--tls-private-key-file', 'b', '--secure-port', 'x']);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--secure-port must be a port number, got x');
    const ttl = await runCli(['apiserver', '--tls-cert-file', 'a', '--tls-private-key-file', 'b', '--authorization-webhook-cache-unauthorized-ttl', 'soon']);
    expect(ttl.code).toBe(2);
    expect(ttl.stderr).toContain('--authorization-webhook-cache-unauthorized-ttl must be a duration');
  });
});

describe('karmada-lite controller --aggregated-apiserver', () => {
  it('lists the flags in --help with an example', async () => {
    const r = await runCli(['controller', '--help']);
    expect(r.stdout).toContain('--aggregated-apiserver-cert-file');
    expect(r.stdout).toContain('karmada-lite controller --kubeconfig host.config --aggregated-apiserver');
  });
});
