/** The webhook configurations in deploy/webhook/, rendered for one server: its URL and its CA. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

export const DEPLOY_DIR = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'deploy', 'webhook');
export const WEBHOOK_CONFIG_FILES = ['mutating.yaml', 'validating.yaml'];

export interface RenderOptions {
  /** Base URL of the server, e.g. https://127.0.0.1:8443 (no trailing slash). */
  url: string;
  /** PEM of the CA that signed the serving certificate. */
  caPem: string | Buffer;
}

/** Substitutes ${WEBHOOK_URL} and ${CA_BUNDLE}, as envsubst would; refuses to leave a placeholder behind. */
export function renderTemplate(text: string, opts: RenderOptions): string {
  const vars: Record<string, string> = { WEBHOOK_URL: opts.url.replace(/\/+$/, ''), CA_BUNDLE: Buffer.from(opts.caPem).toString('base64') };
  return text.replace(/\$\{([A-Z_]+)\}/g, (m, name: string) => {
    const v = vars[name];
    if (v === undefined) throw new Error(`unknown placeholder ${m} in a webhook configuration template; known: \${WEBHOOK_URL}, \${CA_BUNDLE}`);
    return v;
  });
}

/** Both configurations as objects, ready for the API server. */
export function renderWebhookConfigurations(opts: RenderOptions, dir = DEPLOY_DIR): Record<string, any>[] {
  return WEBHOOK_CONFIG_FILES.flatMap((f) =>
    parseAllDocuments(renderTemplate(readFileSync(join(dir, f), 'utf8'), opts))
      .map((d) => d.toJS() as Record<string, any>)
      .filter(Boolean),
  );
}
