// `karmada-lite webhook` as a process: flags, startup errors, offline existing RICs, graceful shutdown.
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { request } from 'node:https';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { makePki } from './certs.js';

const root = join(import.meta.dirname, '..', '..');
const args = (rest: string[]) => [process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), 'webhook', ...rest]] as const;

describe('karmada-lite webhook (the command)', () => {
  it('documents its paths in --help', () => {
    const [cmd, a] = args(['--help']);
    const r = spawnSync(cmd, a, { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('/validate-resourceinterpretercustomization');
    expect(r.stdout).toContain('--cert-file <path>');
  });

  it.each([
    [['--cert-file', 'a', '--key-file', 'b', '--port', 'http'], '--port must be a port number, got http'],
    [['--cert-file', 'a', '--key-file', 'b', '--schema', 'strict'], '--schema must be decode or full, got strict'],
    [['--cert-file', '/nonexistent.crt', '--key-file', 'b'], 'cannot read --cert-file /nonexistent.crt'],
    // Karmada's gates are accepted (FederatedQuotaEnforcement with a warning): what stops the start is the certificate.
    [['--cert-file', '/nonexistent.crt', '--key-file', 'b', '--feature-gates', 'FederatedQuotaEnforcement=true,AllAlpha=true,AllBeta=true'], 'cannot read --cert-file /nonexistent.crt'],
    [['--cert-file', 'a', '--key-file', 'b', '--feature-gates', 'Nope=true'], 'unrecognized feature gate: Nope'],
  ])('exits 2 with a message for %j', (flags, message) => {
    const [cmd, a] = args(flags);
    const r = spawnSync(cmd, a, { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it('exits 2 at start with a certificate whose RSA key is under 2048 bits, saying what to do', () => {
    const pki = makePki();
    pki.issue(join(pki.dir, 'weak.crt'), join(pki.dir, 'weak.key'), 'weak', { rsaBits: 1024 });
    const [cmd, a] = args(['--cert-file', join(pki.dir, 'weak.crt'), '--key-file', join(pki.dir, 'weak.key'), '--port', '0', '--bind-address', '127.0.0.1', '--existing-rics', join(root, 'test/validation/fixtures/risky-ric.yaml')]);
    const r = spawnSync(cmd, a, { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`error: --cert-file ${join(pki.dir, 'weak.crt')} is refused: its RSA key has 1024 bits, under the minimum of 2048; issue a certificate with an RSA key of at least 2048 bits or an EC P-256 key (scripts/deploy-cert.sh makes one)`);
  });

  it('serves with existing RICs from files, logs JSON lines, and stops cleanly on SIGTERM', async () => {
    const pki = makePki();
    const cert = join(pki.dir, 'tls.crt');
    const key = join(pki.dir, 'tls.key');
    pki.issue(cert, key, 'cmd');
    const rics = join(pki.dir, 'rics.yaml');
    writeFileSync(rics, 'apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {name: existing}\nspec:\n  target: {apiVersion: apps/v1, kind: Deployment}\n  customizations:\n    retention: {luaScript: "function Retain(d, o) return d end"}\n');
    const [cmd, a] = args(['--cert-file', cert, '--key-file', key, '--port', '0', '--bind-address', '127.0.0.1', '--existing-rics', rics]);
    const child = spawn(cmd, a, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const port = await new Promise<number>((resolve, reject) => {
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
        const m = /^(?=.*"msg":"webhook serving").*"port":(\d+)/m.exec(stderr);
        if (m) resolve(Number(m[1]));
      });
      child.on('exit', () => reject(new Error(`exited early: ${stderr}`)));
    });
    const body = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'r1', operation: 'CREATE', object: { apiVersion: 'config.karmada.io/v1alpha1', kind: 'ResourceInterpreterCustomization', metadata: { name: 'new' }, spec: { target: { apiVersion: 'apps/v1', kind: 'Deployment' }, customizations: { retention: { luaScript: 'function Retain(d, o) return o end' } } } } },
    });
    const reply = await new Promise<any>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/validate-resourceinterpretercustomization', method: 'POST', ca: pki.ca, headers: { 'Content-Type': 'application/json' } }, (res) => {
        let t = '';
        res.on('data', (c: Buffer) => (t += c.toString()));
        res.on('end', () => resolve(JSON.parse(t)));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(reply.response.status.message).toBe('conflicting with InterpreterOperation(Retain) of existing ResourceInterpreterCustomization(existing)');
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = stderr.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l.uid === 'r1')).toMatchObject({ level: 'info', msg: 'admission', kind: 'ResourceInterpreterCustomization', name: 'new', verdict: 'denied', code: 403 });
    expect(lines.at(-1)).toMatchObject({ msg: 'shutting down', signal: 'SIGTERM' });
  });
});
