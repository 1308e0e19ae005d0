/**
 * The objects a command is given, as kubectl takes them: files, directories or `-` as arguments or
 * with -f (both add up), and `-n/--namespace` as `kubectl apply -n` means it: the namespace of every
 * namespaced object that names none, and an error for one that names another.
 */
import type { Command } from 'commander';
import { findBuiltinKind } from '../api/kubernetes-kinds.js';
import { InputError, type SourceDocument } from '../io/documents.js';
import { findKind } from '../validation/schema.js';
import { logV } from './verbosity.js';

export function addNamespaceFlag(cmd: Command, describe = 'the namespace of namespaced objects that name none, as kubectl apply -n'): Command {
  return cmd.option('-n, --namespace <namespace>', describe);
}

/** The paths of `cmd FILE...` and `-f FILE...` together; none at all is a usage error that says how to give them. */
export function inputPaths(args: readonly string[], filename: readonly string[] | undefined, example: string): string[] {
  const paths = [...args, ...(filename ?? [])];
  if (paths.length === 0) throw new InputError(`no input: give files, directories or - (standard input) as arguments or with -f, e.g. ${example}`);
  return paths;
}

/**
 * Whether a kind is namespaced, from the schemas and the built-in kinds. Kinds of other groups are not
 * known offline (kubectl asks the cluster's discovery): they are left as they are.
 */
export function isNamespaced(apiVersion: unknown, kind: unknown): boolean | undefined {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  return findKind(apiVersion, kind)?.namespaced ?? findBuiltinKind(apiVersion, kind)?.namespaced;
}

/** Gives every namespaced object without metadata.namespace the namespace of -n; one with another namespace is an error. */
export function applyNamespace(docs: SourceDocument[], namespace: string | undefined): SourceDocument[] {
  if (namespace === undefined) return docs;
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(namespace) || namespace.length > 63) {
    throw new InputError(`--namespace ${JSON.stringify(namespace)} is not a namespace name (lowercase letters, digits and -, at most 63)`);
  }
  logV(4, `namespace ${namespace} for namespaced objects that name none`);
  return docs.map((doc) => {
    const o = doc.object;
    if (!isNamespaced(o.apiVersion, o.kind)) return doc;
    const meta = (o.metadata !== null && typeof o.metadata === 'object' && !Array.isArray(o.metadata) ? o.metadata : {}) as Record<string, unknown>;
    if (typeof meta.namespace === 'string' && meta.namespace !== '') {
      if (meta.namespace === namespace) return doc;
      throw new InputError(`${doc.file}[${doc.index}]: the namespace from the provided object "${meta.namespace}" does not match the namespace "${namespace}" of --namespace; drop -n or the object's metadata.namespace`);
    }
    return { ...doc, object: { ...o, metadata: { ...meta, namespace } } };
  });
}
