import type { Command } from 'commander';
import { createLogger, isLevel, parseLogFormat } from '../../runtime/log.js';
import { parseFeatureGates } from '../../validation/binding.js';
import { WebhookServer } from '../../webhook/server.js';
import { capYoungGeneration } from '../../webhook/heap.js';
import { ROUTES, type ReviewContext } from '../../webhook/review.js';
import { DELETION_PROTECTION_PATH } from '../../webhook/deletion-protection.js';
import { DeletionProtectionAlways, DeletionProtectionLabel } from '../../api/constants.js';
import { serveUntilSignal } from '../serve.js';
import { WEBHOOK_YOUNG_GENERATION_MB } from '../early-heap.js';
import { loadKubeConfig } from '../kubeconfig.js';
import { logLevelFor } from '../verbosity.js';

export interface WebhookOptions {
  certFile: string;
  keyFile: string;
  port: string;
  bindAddress: string;
  kubeconfig?: string;
  /** The kubeconfig context (default: its current-context). */
  context?: string;
  existingRics?: string[];
  featureGates?: string;
  schema: string;
  logLevel: string;
  /** json or text; unset: text on a terminal, else json. */
  logFormat?: string;
  tlsMinVersion: string;
  certReloadInterval: string;
  rejectRiskyScripts?: boolean;
  allowNoExecuteTaintPolicy?: boolean;
}

export function registerWebhook(program: Command): void {
  program
    .command('webhook')
    .description('Serve the validating and mutating admission webhooks (AdmissionReview over HTTPS) for every karmada-lite kind.')
    .requiredOption('--cert-file <path>', 'PEM certificate the server presents (reloaded when the file changes)')
    .requiredOption('--key-file <path>', 'PEM private key of the certificate (reloaded when the file changes)')
    .option('--port <port>', 'port to listen on', '8443')
    .option('--bind-address <address>', 'address to listen on', '0.0.0.0')
    .option('--kubeconfig <path>', 'cluster to read existing ResourceInterpreterCustomizations from, for the conflict check')
    .option('--context <name>', 'the kubeconfig context of that cluster (default: the current-context; without --kubeconfig, of the default kubeconfig)')
    .option('--existing-rics <path...>', 'offline: files or directories with the existing ResourceInterpreterCustomizations')
    .option('--feature-gates <gates>', 'Karmada alpha rules to turn on, e.g. MultiplePodTemplatesScheduling=true')
    .option('--schema <mode>', 'decode: refuse only values of the wrong type, as Karmada (the CRD schema does the rest); full: also check the whole schema', 'decode')
    .option('--log-level <level>', 'debug, info, warn or error', 'info')
    .option('--log-format <format>', 'json or text (default: text when standard error is a terminal, else json)')
    .option('--tls-min-version <version>', 'TLSv1.2 or TLSv1.3', 'TLSv1.3')
    .option('--cert-reload-interval <ms>', 'how often to check the certificate files for changes, in milliseconds', '1000')
    .option('--reject-risky-scripts', 'refuse RICs whose Lua scripts have a known trap (an xpcall handler that loops, while true with no way out, a huge string.rep) instead of admitting them with warnings')
    .option('--allow-no-execute-taint-policy', 'admit ClusterTaintPolicies with NoExecute taints (off, as in Karmada: such a taint evicts every workload that does not tolerate it)')
    .addHelpText(
      'after',
      `
Paths (Karmada's, so existing webhook configurations work unchanged):
${ROUTES.map((r) => `  ${r.path.padEnd(44)} ${r.kind} ${r.operations.join(', ')}`).join('\n')}
  ${DELETION_PROTECTION_PATH.padEnd(44)} any kind labelled ${DeletionProtectionLabel}=${DeletionProtectionAlways}: DELETE refused
  /healthz, /readyz                            plain-text health checks
  /metrics                                     Prometheus: reviews by path and verdict, review duration, Node runtime

Every request is logged as one line on standard error (JSON, or text on a terminal) with its uid, kind, name and verdict.
Webhook configurations to register it: deploy/webhook/ (failurePolicy Fail).

Examples:
  karmada-lite webhook --cert-file tls.crt --key-file tls.key
  karmada-lite webhook --cert-file tls.crt --key-file tls.key --kubeconfig ~/.kube/karmada.config --port 9443`,
    )
    .action(async (opts: WebhookOptions) => {
      let server: WebhookServer;
      try {
        // The young generation held where it is (1 MB per semi-space when the CLI started it: early-heap.ts),
        // not grown to 16 MB per semi-space under load (src/webhook/heap.ts)
        capYoungGeneration(WEBHOOK_YOUNG_GENERATION_MB);
        // -v 4 or more (kubectl's verbosity, on every command) logs at debug level.
        server = new WebhookServer(await toServerOptions({ ...opts, logLevel: logLevelFor(opts.logLevel) }));
        await server.start();
      } catch (e) {
        process.stderr.write(`error: ${(e as Error).message}\n`);
        process.exitCode = 2;
        return;
      }
      await serveUntilSignal(() => server.stop(), (signal) => server.log.info('shutting down', { signal }));
    });
}

// client-node is loaded only when a cluster is named: it costs every other CLI command startup time.
export async function toServerOptions(opts: WebhookOptions) {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, got ${opts.port}`);
  if (!isLevel(opts.logLevel)) throw new Error(`--log-level must be debug, info, warn or error, got ${opts.logLevel}`);
  if (opts.schema !== 'decode' && opts.schema !== 'full') throw new Error(`--schema must be decode or full, got ${opts.schema}`);
  if (opts.tlsMinVersion !== 'TLSv1.2' && opts.tlsMinVersion !== 'TLSv1.3') throw new Error(`--tls-min-version must be TLSv1.2 or TLSv1.3, got ${opts.tlsMinVersion}`);
  const interval = Number(opts.certReloadInterval);
  if (!Number.isFinite(interval) || interval < 10) throw new Error(`--cert-reload-interval must be at least 10 (milliseconds), got ${opts.certReloadInterval}`);
  if ((opts.kubeconfig || opts.context) && opts.existingRics) throw new Error('give either --kubeconfig (--context) or --existing-rics, not both');
  const logger = createLogger({ level: opts.logLevel, format: parseLogFormat(opts.logFormat) });
  const ctx: ReviewContext = { gates: parseFeatureGates(opts.featureGates, (m) => logger.warn(m)), schema: opts.schema, riskyScripts: opts.rejectRiskyScripts ? 'reject' : 'warn', allowNoExecuteTaintPolicy: opts.allowNoExecuteTaintPolicy === true };
  if (opts.kubeconfig || opts.context) {
    const { clusterRicLister } = await import('../../webhook/ric-source.js');
    ctx.listRics = clusterRicLister(await loadKubeConfig(opts.kubeconfig, opts.context));
  } else if (opts.existingRics) {
    const { fileRicLister } = await import('../../webhook/ric-source.js');
    ctx.listRics = fileRicLister(opts.existingRics);
  } else {
    logger.warn('no --kubeconfig or --existing-rics: the ResourceInterpreterCustomization conflict check sees no existing RICs');
  }
  return { certFile: opts.certFile, keyFile: opts.keyFile, port, bindAddress: opts.bindAddress, logger, review: ctx, minTlsVersion: opts.tlsMinVersion, reloadIntervalMs: interval } as const;
}
