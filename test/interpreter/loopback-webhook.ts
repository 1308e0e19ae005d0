// An interpreter webhook on loopback for unit tests: HTTPS with a throwaway CA, one answer function for
// every ResourceInterpreterContext request, and the operations it was asked in order.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePki } from '../webhook/certs.js';

export interface LoopbackWebhook {
  /** https://127.0.0.1:PORT (append the hook's path). */
  base: string;
  caBundle: string;
  operations: string[];
  close(): Promise<void>;
}

/** `answer` gets the request (`request` of the review) and returns the `response` without uid. */
export async function startLoopbackWebhook(answer: (request: any) => Record<string, unknown>): Promise<LoopbackWebhook> {
  const dir = mkdtempSync(join(tmpdir(), 'riwc-loopback-'));
  const pki = makePki(dir);
  pki.issue(join(dir, 'tls.crt'), join(dir, 'tls.key'), 'interpreter-webhook');
  const operations: string[] = [];
  const server = createServer({ cert: readFileSync(join(dir, 'tls.crt')), key: readFileSync(join(dir, 'tls.key')) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = JSON.parse(Buffer.concat(chunks).toString('utf8')).request;
      operations.push(r.operation);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ response: { uid: r.uid, ...answer(r) } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    base: `https://127.0.0.1:${(server.address() as { port: number }).port}`,
    caBundle: pki.ca.toString('base64'),
    operations,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
