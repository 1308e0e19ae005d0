/**
 * What the fleet commands share: the host kubeconfig flags (`--kubeconfig`, `--context`, `-n`), the host
 * client, and kubectl's way of ending: a server's answer printed as `Error from server (Reason): ...`, any
 * other failure as `error: ...`, both exit 1; usage errors (InputError) exit 2 through main.
 */
import type { Command } from 'commander';
import { InputError } from '../../io/documents.js';
import { loadKubeConfig } from '../kubeconfig.js';
import { FleetClient, ServerError } from './client.js';
import { errorMessage } from '../../json/error.js';
import { addRequestTimeoutFlag, DefaultFleetRequestTimeout, parseRequestTimeout } from '../client-flags.js';

export interface HostFlags {
  kubeconfig?: string;
  context?: string;
  namespace?: string;
  /** `--request-timeout` (kubectl's format); every fleet command has it. */
  requestTimeout?: string;
}

export function addHostFlags(cmd: Command, withNamespace = true): Command {
  cmd
    .option('--kubeconfig <file>', 'the host kubeconfig (default $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'the kubeconfig context to use instead of its current-context');
  if (withNamespace) cmd.option('-n, --namespace <ns>', "the namespace (default the context's namespace, else default)");
  return addRequestTimeoutFlag(cmd);
}

export interface Host {
  client: FleetClient;
  /** `-n`, else the context's namespace, else `default`. */
  namespace: string;
}

export async function connectHost(flags: HostFlags): Promise<Host> {
  const kc = await loadKubeConfig(flags.kubeconfig, flags.context);
  const contextNs = kc.getContextObject(kc.getCurrentContext())?.namespace;
  const timeout = parseRequestTimeout(flags.requestTimeout ?? DefaultFleetRequestTimeout);
  return { client: new FleetClient(kc, '', timeout), namespace: flags.namespace ?? (contextNs || 'default') };
}

/** How a failure that is not a usage error is printed. */
export const errorLine = (e: unknown): string => (e instanceof ServerError ? e.message : `error: ${errorMessage(e)}`);

/** Runs a command's body; failures print as kubectl prints them and set exit status 1. */
export async function runFleet(body: () => Promise<number | void>): Promise<void> {
  try {
    const code = await body();
    if (typeof code === 'number' && code !== 0) process.exitCode = code;
  } catch (e) {
    if (e instanceof InputError) throw e;
    process.stderr.write(errorLine(e) + '\n');
    process.exitCode = 1;
  }
}
