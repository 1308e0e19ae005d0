/**
 * `interpret serve` (the RICs and built-ins as a Karmada resource interpreter webhook) and
 * `interpret test --webhook` (a fixture tree against such a webhook, alone or beside the local scripts).
 */
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { stringify } from 'yaml';
import { InputError, readDocuments } from '../../io/documents.js';
import { applyExclude, caseArgs, compareResult, diffText, executeRule, runTestCaseWith, type CaseResult, type TestCase } from '../../interpreter/harness.js';
import { createInterpreter } from '../../interpreter/interpreter.js';
import { InterpreterPool } from '../../interpreter/pool.js';
import { isRIC } from '../../interpreter/ric.js';
import { runTestTreeWith, type TreeResult } from '../../interpreter/test-tree.js';
import { parseOperation, type RIC } from '../../interpreter/types.js';
import { webhookRuleExecutor } from '../../interpreter/webhook/rule.js';
import { interpreterRunner, serveInterpreterContext, webhookConfigurationFor } from '../../interpreter/webhook/serve.js';
import { createWebhookClient, DEFAULT_WEBHOOK_TIMEOUT_SECONDS } from '../../interpreter/webhook/transport.js';
import { createLogger, isLevel, parseLogFormat } from '../../runtime/log.js';
import { WebhookServer } from '../../webhook/server.js';
import { inputPaths } from '../input.js';
import { serveUntilSignal } from '../serve.js';
import { logLevelFor } from '../verbosity.js';
import { errorMessage } from '../../json/error.js';

/** The Service deploy/interpreter-webhook/ creates; --print-config points at it unless --url is given. */
export const SERVE_SERVICE = { namespace: 'karmada-system', name: 'karmada-lite-interpreter-webhook', port: 443, path: '/interpret' } as const;

interface ServeOptions {
  filename?: string[];
  certFile?: string;
  keyFile?: string;
  port: string;
  address: string;
  path: string;
  workers: string;
  budgetMs?: string;
  logLevel: string;
  logFormat?: string;
  tlsMinVersion: string;
  certReloadInterval: string;
  printConfig?: boolean;
  url?: string;
  caFile?: string;
  name: string;
  timeoutSeconds: string;
}

const SERVE_HELP = `
Answers Karmada's resource interpreter webhook protocol (ResourceInterpreterContext, config.karmada.io/v1alpha1)
for every operation, from the given ResourceInterpreterCustomizations plus the built-in interpreters: a way to
run Lua customizations for a Karmada that should not (or cannot) hold them as RICs. Scripts run in worker
threads with the usual budgets, so a script that spins cannot stall the server. The protocol is served at
--path (default /interpret); /healthz, /readyz and /metrics are the probes and Prometheus metrics.

Examples:
  karmada-lite interpret serve -f my-rics/ --cert-file tls.crt --key-file tls.key
  karmada-lite interpret serve -f my-rics/ --cert-file tls.crt --key-file tls.key --address 0.0.0.0 --port 8445
  karmada-lite interpret serve -f my-rics/ --print-config --ca-file ca.crt | kubectl --kubeconfig karmada.config apply -f -
  karmada-lite interpret serve -f my-rics/ --print-config --url https://10.0.0.5:8445/interpret --ca-file ca.crt

--print-config prints the ResourceInterpreterWebhookConfiguration that registers the server: one rule per RIC
target with the operations its RICs implement. Manifests to run it in a Karmada control plane:
deploy/interpreter-webhook/.`;

function positiveInt(v: string, flag: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new InputError(`${flag} must be a whole number from 1 to ${max}, got "${v}"`);
  return n;
}

function readRics(paths: string[]): RIC[] {
  return paths.length === 0 ? [] : (readDocuments(paths).map((d) => d.object).filter(isRIC) as RIC[]);
}

function readPem(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read ${flag} ${file}: ${errorMessage(e)}`);
  }
}

function printConfig(rics: RIC[], opts: ServeOptions): void {
  const timeoutSeconds = positiveInt(opts.timeoutSeconds, '--timeout-seconds', 30);
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(opts.name)) {
    throw new InputError(`--name must be a fully-qualified domain name with at least two labels (e.g. interpreter.example.com), got "${opts.name}"`);
  }
  const config = webhookConfigurationFor(rics, {
    configurationName: opts.name.split('.')[0]!,
    hookName: opts.name,
    ...(opts.url ? { url: opts.url } : { service: { ...SERVE_SERVICE, path: opts.path } }),
    ...(opts.caFile ? { caPem: readPem(opts.caFile, '--ca-file') } : {}),
    timeoutSeconds,
  });
  process.stdout.write(stringify(config, { lineWidth: 0 }));
}

async function serve(rics: RIC[], opts: ServeOptions): Promise<void> {
  if (!opts.certFile || !opts.keyFile) throw new InputError('--cert-file and --key-file are required to serve (or give --print-config); see --help');
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InputError(`--port must be a port number, got "${opts.port}"`);
  const level = logLevelFor(opts.logLevel);
  if (!isLevel(level)) throw new InputError(`--log-level must be debug, info, warn or error, got "${opts.logLevel}"`);
  if (opts.tlsMinVersion !== 'TLSv1.2' && opts.tlsMinVersion !== 'TLSv1.3') throw new InputError(`--tls-min-version must be TLSv1.2 or TLSv1.3, got "${opts.tlsMinVersion}"`);
  const interval = Number(opts.certReloadInterval);
  if (!Number.isFinite(interval) || interval < 10) throw new InputError(`--cert-reload-interval must be at least 10 (milliseconds), got "${opts.certReloadInterval}"`);
  const budgetMs = opts.budgetMs === undefined ? undefined : positiveInt(opts.budgetMs, '--budget-ms');
  const logger = createLogger({ level, format: parseLogFormat(opts.logFormat) });
  const real = createInterpreter({ customizations: rics, budgetMs });
  const pool = new InterpreterPool({ size: positiveInt(opts.workers, '--workers', 64), budgetMs });
  pool.setCustomizations(rics);
  const run = interpreterRunner(real, pool);
  const server = new WebhookServer({
    certFile: opts.certFile,
    keyFile: opts.keyFile,
    port,
    bindAddress: opts.address,
    logger,
    minTlsVersion: opts.tlsMinVersion,
    reloadIntervalMs: interval,
    handler: {
      name: 'interpret',
      isRoute: (p) => p === opts.path,
      handle: async (input) =>
        input.path === opts.path
          ? serveInterpreterContext(input, run)
          : { body: { response: { uid: '', successful: false, status: { code: 404, message: `no interpreter webhook is served at ${input.path}; the path is ${opts.path}` } } }, verdict: 'malformed', code: 404 },
    },
  });
  try {
    await server.start();
  } catch (e) {
    await pool.close();
    throw new InputError(errorMessage(e));
  }
  logger.info('interpreter webhook serving', { rics: rics.length, workers: pool.size });
  await serveUntilSignal(
    async () => {
      await server.stop();
      await pool.close();
    },
    (signal) => logger.info('shutting down', { signal }),
  );
}

export function registerInterpretServe(parent: Command): void {
  parent
    .command('serve')
    .description('serve RICs and the built-in interpreters as a Karmada resource interpreter webhook (HTTPS)')
    .argument('[files...]', 'RIC files or directories (the same as -f)')
    .option('-f, --filename <path...>', 'RIC files or directories (YAML or JSON); none: the built-in interpreters only')
    .option('--cert-file <path>', 'PEM certificate the server presents (reloaded when the file changes)')
    .option('--key-file <path>', 'PEM private key of the certificate (reloaded when the file changes)')
    .option('--port <port>', 'port to listen on (8445, as Karmada\'s example webhook)', '8445')
    .option('--address <address>', 'address to listen on (0.0.0.0 in a Pod)', '127.0.0.1')
    .option('--path <path>', 'the request path the protocol is served at (clientConfig.service.path or the URL\'s path)', SERVE_SERVICE.path)
    .option('--workers <n>', 'interpreter worker threads for the RICs\' scripts', '2')
    .addOption(new Option('--budget-ms <ms>', 'per-call time budget of a script in milliseconds').default(undefined, '1000'))
    .option('--log-level <level>', 'debug, info, warn or error', 'info')
    .option('--log-format <format>', 'json or text (default: text when standard error is a terminal, else json)')
    .option('--tls-min-version <version>', 'TLSv1.2 or TLSv1.3', 'TLSv1.3')
    .option('--cert-reload-interval <ms>', 'how often to check the certificate files for changes, in milliseconds', '1000')
    .option('--print-config', 'print the ResourceInterpreterWebhookConfiguration that registers this server, and exit')
    .option('--url <url>', `with --print-config: clientConfig.url (default: the Service ${SERVE_SERVICE.namespace}/${SERVE_SERVICE.name}, port ${SERVE_SERVICE.port}, path ${SERVE_SERVICE.path})`)
    .option('--ca-file <path>', 'with --print-config: the CA certificate (PEM) that signed --cert-file, put in caBundle')
    .option('--name <fqdn>', 'with --print-config: the hook\'s name; its first label names the configuration', 'karmada-lite-interpreter.karmada.io')
    .option('--timeout-seconds <n>', 'with --print-config: the hook\'s timeoutSeconds (1-30)', String(DEFAULT_WEBHOOK_TIMEOUT_SECONDS))
    .addHelpText('after', SERVE_HELP)
    .action(async (files: string[], own: ServeOptions, command: Command) => {
      // -f and --budget-ms are the parent's flags too, and commander hands them to `interpret`.
      const parent = (command.parent?.opts() ?? {}) as Partial<ServeOptions>;
      const opts: ServeOptions = { ...own, filename: [...(parent.filename ?? []), ...(own.filename ?? [])], budgetMs: own.budgetMs ?? parent.budgetMs };
      const paths = files.length || opts.filename?.length ? inputPaths(files, opts.filename, 'karmada-lite interpret serve -f my-rics/ --cert-file tls.crt --key-file tls.key') : [];
      const rics = readRics(paths);
      if (opts.printConfig) return printConfig(rics, opts);
      await serve(rics, opts);
    });
}

export interface WebhookTestOptions {
  webhook: string;
  webhookCa?: string;
  compareLocal?: boolean;
  verbose: boolean;
  budgetMs?: number;
  log: (line: string) => void;
}

type RuleRun = { results: [string, unknown][] } | { error: string };

async function settle(f: () => [string, unknown][] | Promise<[string, unknown][]>): Promise<RuleRun> {
  try {
    return { results: await f() };
  } catch (e) {
    return { error: errorMessage(e).trimEnd() };
  }
}

/**
 * How the webhook's answer differs from the local one, or undefined when they agree. Fields the case
 * leaves out of its expectations (`{{EXCLUDE}}`: a clock read, say) are left out here too.
 */
function disagreement(tc: TestCase, local: RuleRun, remote: RuleRun): string | undefined {
  if ('error' in local || 'error' in remote) {
    const l = 'error' in local ? `error: ${local.error}` : 'succeeded';
    const r = 'error' in remote ? `error: ${remote.error}` : 'succeeded';
    return l === r ? undefined : `local ${l}\nwebhook ${r}`;
  }
  const theirs = new Map(remote.results);
  const out: string[] = [];
  const expected = (tc.output ?? {}) as Record<string, unknown>;
  const unexcluded = (key: string, v: unknown) => (key in expected ? applyExclude(expected[key], v).actual : v);
  for (const [key, mine] of local.results) {
    const cmp = compareResult(key, unexcluded(key, mine), unexcluded(key, theirs.get(key)));
    if (!cmp.equal) out.push(`${key} differs (- local, + webhook):\n${diffText(cmp.expected, cmp.actual)}`);
  }
  return out.length ? out.join('\n') : undefined;
}

/**
 * The fixture tree against a webhook. With compareLocal each case also runs in-process, and fails when
 * the webhook's results differ from the local ones as well as when they miss the expectations.
 */
export async function runWebhookTests(dir: string, opts: WebhookTestOptions): Promise<TreeResult> {
  const client = createWebhookClient({ url: opts.webhook, ...(opts.webhookCa ? { caBundle: readPem(opts.webhookCa, '--webhook-ca') } : {}) });
  const exec = webhookRuleExecutor(client);
  try {
    return await runTestTreeWith(dir, { log: opts.log, verbose: opts.verbose, budgetMs: opts.budgetMs }, async (interp, tc): Promise<CaseResult> => {
      const op = parseOperation(String(tc.operation ?? ''));
      if (!opts.compareLocal || !op) return runTestCaseWith(exec, tc);
      const args = caseArgs(tc);
      const remote = await settle(() => exec(op, args));
      const differs = disagreement(tc, await settle(() => executeRule(interp, op, args)), remote);
      const judged = await runTestCaseWith(async () => {
        if ('error' in remote) throw new Error(remote.error);
        return remote.results;
      }, tc);
      if (!differs) return judged;
      return { ok: false, detail: [differs, judged.ok ? undefined : judged.detail].filter(Boolean).join('\n') };
    });
  } finally {
    client.close();
  }
}
