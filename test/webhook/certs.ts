// Throwaway PKI for webhook tests: a CA and a serving certificate for 127.0.0.1/localhost, made with the
// openssl CLI (node has no X.509 generation).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPki {
  dir: string;
  caFile: string;
  ca: Buffer;
  /** Writes a new key (EC P-256, or RSA of `rsaBits`) and certificate signed by the CA to certFile/keyFile; returns the certificate. */
  issue(certFile: string, keyFile: string, commonName: string, opts?: { rsaBits?: number }): Buffer;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function makePki(dir = mkdtempSync(join(tmpdir(), 'karmada-lite-pki-'))): TestPki {
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=karmada-lite-test-ca'], dir);
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  let serial = 1;
  return {
    dir,
    caFile: join(dir, 'ca.crt'),
    ca: readFileSync(join(dir, 'ca.crt')),
    issue(certFile, keyFile, commonName, opts = {}) {
      const tag = `srv${serial++}`;
      const key = opts.rsaBits ? ['-newkey', `rsa:${opts.rsaBits}`] : ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
      openssl(['req', ...key, '-nodes', '-keyout', `${tag}.key`, '-out', `${tag}.csr`, '-subj', `/CN=${commonName}`], dir);
      openssl(['x509', '-req', '-in', `${tag}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', String(Date.now() + serial), '-days', '2', '-extfile', 'san.ext', '-out', `${tag}.crt`], dir);
      const cert = readFileSync(join(dir, `${tag}.crt`));
      writeFileSync(keyFile, readFileSync(join(dir, `${tag}.key`)));
      writeFileSync(certFile, cert);
      return cert;
    },
  };
}
