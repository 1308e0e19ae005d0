/** The flags of every command that reads objects, spelt and meant as kubeconform has them. */
import type { Command } from 'commander';
import { emptyInputMessage, InputError, readInput, type Input, type ReadOptions } from '../io/documents.js';
import { DEFAULT_KUBERNETES_VERSION, KUBERNETES_VERSIONS, resolveKubernetesVersion } from '../validation/kubernetes-schema.js';

export interface InputFlags {
  skipKinds?: string[];
  ignoreFilenamePattern?: string[];
}

const collect = (v: string, prev: string[] = []) => [...prev, v];

export function addInputFlags(cmd: Command): Command {
  return cmd
    .option('--skip-kinds <kinds>', 'leave out these kinds, comma-separated: a kind (ConfigMap) or apiVersion/kind (apps/v1/Deployment); repeatable', collect)
    .option('--ignore-filename-pattern <regex>', 'do not read files or folders whose path matches this regular expression (e.g. "/tests?/" or "\\.github"); repeatable', collect);
}

export function readOptionsFromFlags(flags: InputFlags): ReadOptions {
  return { skipKinds: flags.skipKinds, ignoreFilenamePatterns: flags.ignoreFilenamePattern };
}

/**
 * Reads the objects a command was given. No objects at all is an error (a failed `kubectl get` upstream
 * in a pipe must not pass): it is printed and the command exits 1; undefined comes back.
 */
export function readObjects(paths: string[], flags: InputFlags): Input | undefined {
  const input = readInput(paths, readOptionsFromFlags(flags));
  if (input.documents.length > 0) return input;
  process.stderr.write(`error: ${emptyInputMessage(paths, input)}\n`);
  process.exitCode = 1;
  return undefined;
}

export function addKubernetesVersionFlag(cmd: Command): Command {
  return cmd.option('--kubernetes-version <version>', `the Kubernetes version whose API schemas built-in kinds are checked against: ${KUBERNETES_VERSIONS.join(', ')} (default ${DEFAULT_KUBERNETES_VERSION})`);
}

/** The version `--kubernetes-version` names, as a usage error (exit 2) when this build ships none such. */
export function kubernetesVersionFromFlag(flag: string | undefined): string {
  try {
    return resolveKubernetesVersion(flag);
  } catch (e) {
    throw new InputError((e as Error).message);
  }
}
