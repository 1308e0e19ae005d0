// scripts/deploy-cert.sh keeps its PKI (a CA private key) outside the checkout.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const script = path.join(repoRoot, 'scripts', 'deploy-cert.sh');
const made: string[] = [];
const tmp = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'karmada-lite-deploy-cert-'));
  made.push(d);
  return d;
};
afterEach(() => made.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function run(env: Record<string, string | undefined>, cwd = repoRoot) {
  const clean = { ...process.env, XDG_STATE_HOME: undefined, OUT: undefined, ...env };
  return spawnSync('bash', [script, '--print'], { cwd, env: clean as NodeJS.ProcessEnv, encoding: 'utf8' });
}

describe('scripts/deploy-cert.sh', () => {
  it('keeps the CA under the state folder by default, not in the folder it is run from', () => {
    const home = tmp();
    const r = run({ HOME: home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('kind: ValidatingWebhookConfiguration');
    const pki = path.join(home, '.local', 'state', 'karmada-lite', 'webhook-pki', 'karmada-system.karmada-lite-webhook');
    expect(readdirSync(pki)).toEqual(expect.arrayContaining(['ca.key', 'ca.crt', 'tls.key', 'tls.crt']));
    expect(statSync(pki).mode & 0o777).toBe(0o700);
    expect(existsSync(path.join(repoRoot, 'karmada-lite-webhook-pki'))).toBe(false);
  });

  it('refuses an OUT inside the checkout, before writing any key there', () => {
    const inside = path.join(repoRoot, '.tmp', `pki-test-${process.pid}`);
    try {
      const r = run({ OUT: inside, HOME: tmp() });
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('is inside the checkout');
      expect(existsSync(path.join(inside, 'ca.key'))).toBe(false);
    } finally {
      rmSync(inside, { recursive: true, force: true });
    }
  });

  it('reuses the CA of an earlier run, so the caBundle stays the same on renewal', () => {
    const out = tmp();
    const first = run({ OUT: out });
    const second = run({ OUT: out });
    expect(first.status, first.stderr).toBe(0);
    const bundle = (s: string) => /caBundle: (\S+)/.exec(s)?.[1];
    expect(bundle(first.stdout)).toBeDefined();
    expect(bundle(second.stdout)).toBe(bundle(first.stdout));
  });
});
