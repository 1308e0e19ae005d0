/**
 * What join, unjoin and unregister share: the kubeconfigs of the control plane and of the member under
 * karmadactl's flag names, the cluster name as Karmada validates it, the lines they print (one per object,
 * as they are written, `(member)` or `(host)` after the verb; or the objects with -o), and their exit
 * statuses (0 done, 1 refused or failed, 2 usage).
 */
import { existsSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import { InputError } from '../io/documents.js';
import { errorMessage } from '../json/error.js';
import type { Change } from '../kube/join.js';
import { parseDuration } from './core-flags.js';
import { loadKubeConfig } from './kubeconfig.js';
import { parseDryRun, parseMutationOutput, printMutation, type DryRun } from './mutation.js';

/** The flags every one of them has, as commander hands them over. */
export interface RegistrationFlags {
  clusterKubeconfig?: string;
  clusterContext?: string;
  clusterNamespace: string;
  dryRun?: string | boolean;
  output: string;
}

/** Karmada's cluster names: a DNS-1123 label of at most 48 characters (it names the karmada-es-<name> namespace). */
export function clusterNameRuleProblem(name: string): string | undefined {
  if (name.length > 48) return 'must be no more than 48 characters';
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'member-1')";
  return undefined;
}

/** Karmada's ValidateClusterName, in karmadactl's words: a usage error. */
export function checkClusterName(name: string): string {
  const problem = name ? clusterNameRuleProblem(name) : 'must be not empty';
  if (problem) throw new InputError(`invalid cluster name(${name}): ${problem}`);
  return name;
}

/** A kubeconfig under the command's flag names: a missing file or context is a usage error naming them. */
export async function kubeconfigFor(file: string | undefined, context: string | undefined, fileFlag: string, contextFlag: string): Promise<KubeConfig> {
  if (file && !existsSync(file)) throw new InputError(`${fileFlag} ${file}: no such file`);
  try {
    return await loadKubeConfig(file, context);
  } catch (e) {
    throw new InputError(errorMessage(e).replace(/^--context/, contextFlag));
  }
}

/**
 * The member's kubeconfig: --cluster-context, else the context named like the cluster when there is one
 * (karmadactl's unjoin, and its join's example), else the current context.
 */
export async function memberKubeconfig(flags: RegistrationFlags, clusterName: string): Promise<KubeConfig> {
  const kc = await kubeconfigFor(flags.clusterKubeconfig, flags.clusterContext, '--cluster-kubeconfig', '--cluster-context');
  if (flags.clusterContext === undefined && kc.getContextObject(clusterName)) kc.setCurrentContext(clusterName);
  return kc;
}

/** Prints each change as it comes with -o text, all of them at the end otherwise. */
export function changePrinter(flags: RegistrationFlags): { dryRun: DryRun; text: boolean; onChange: (c: Change) => void; end: (changes: readonly Change[]) => void } {
  const dryRun = parseDryRun(flags.dryRun);
  const out = parseMutationOutput(flags.output);
  const text = out.format === 'text';
  return {
    dryRun,
    text,
    onChange: (c) => {
      if (text) process.stdout.write(printMutation([{ object: c.object, verb: `${c.verb} (${c.where})` }], out, dryRun));
    },
    end: (changes) => {
      if (!text) process.stdout.write(printMutation(changes, out, dryRun));
    },
  };
}

/** Runs a command's body with kubectl's exit statuses: 2 for a usage error, 1 for anything the servers refused. */
export async function runRegistration(body: () => Promise<void>): Promise<void> {
  try {
    await body();
    process.exitCode = 0;
  } catch (e) {
    process.stderr.write(`error: ${errorMessage(e)}\n`);
    process.exitCode = e instanceof InputError ? 2 : 1;
  }
}

/** A one-line note for a person: stdout beside the text lines, stderr when stdout carries objects. */
export function say(text: boolean, line: string): void {
  (text ? process.stdout : process.stderr).write(`${line}\n`);
}

/** --wait as karmadactl takes it: a positive Go duration. */
export async function waitFlag(v: string): Promise<number> {
  let ms: number;
  try {
    ms = parseDuration('--wait', v);
  } catch (e) {
    throw new InputError((e as Error).message);
  }
  if (!(ms > 0)) throw new InputError(`--wait ${v} must be a positive duration, e.g. 1m0s`);
  return ms;
}
