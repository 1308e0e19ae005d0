/**
 * The native (TypeScript) layer, last in the lookup order: only what Lua cannot express well. Built-in
 * behaviour for native kinds lives in Lua under `interpreters/`; this layer holds the generic
 * InterpretStatus fallback (every kind reflects its whole `.status`) and a registry for handlers that
 * need TypeScript.
 */
import {
  gvkKey,
  gvkString,
  InterpreterError,
  type AggregatedStatusItem,
  type DependentObjectReference,
  type GVK,
  type KubeObject,
  type Operation,
  type ReplicaResult,
} from './types.js';

export interface NativeHandlers {
  retain?(desired: KubeObject, observed: KubeObject): KubeObject;
  getReplicas?(obj: KubeObject): ReplicaResult;
  reviseReplica?(obj: KubeObject, replicas: number): KubeObject;
  reflectStatus?(obj: KubeObject): unknown;
  aggregateStatus?(obj: KubeObject, items: AggregatedStatusItem[] | null | undefined): KubeObject;
  interpretHealth?(obj: KubeObject): boolean;
  getDependencies?(obj: KubeObject): DependentObjectReference[];
}

const HANDLER_OF: Record<Operation, keyof NativeHandlers | null> = {
  Retain: 'retain',
  InterpretReplica: 'getReplicas',
  InterpretComponent: null,
  ReviseReplica: 'reviseReplica',
  InterpretStatus: 'reflectStatus',
  AggregateStatus: 'aggregateStatus',
  InterpretHealth: 'interpretHealth',
  InterpretDependency: 'getDependencies',
};

export class NativeInterpreter {
  private readonly handlers = new Map<string, NativeHandlers>();

  /** Adds (or replaces) TypeScript handlers for one kind. */
  register(gvk: GVK, handlers: NativeHandlers): void {
    this.handlers.set(gvkKey(gvk), { ...this.handlers.get(gvkKey(gvk)), ...handlers });
  }

  /** InterpretStatus is always answered (whole-status fallback); InterpretComponent never. */
  hookEnabled(gvk: GVK, op: Operation): boolean {
    if (op === 'InterpretStatus') return true;
    const h = HANDLER_OF[op];
    return h !== null && this.handlers.get(gvkKey(gvk))?.[h] !== undefined;
  }

  private handler<K extends keyof NativeHandlers>(gvk: GVK, name: K, op: Operation): NonNullable<NativeHandlers[K]> {
    const h = this.handlers.get(gvkKey(gvk))?.[name];
    if (!h) {
      if (op === 'InterpretDependency') throw new InterpreterError('default interpreter for operation InterpretDependency not found', op);
      throw new InterpreterError(`default ${op} interpreter for "${gvkString(gvk)}" not found`, op);
    }
    return h as NonNullable<NativeHandlers[K]>;
  }

  retain(gvk: GVK, desired: KubeObject, observed: KubeObject): KubeObject {
    return this.handler(gvk, 'retain', 'Retain')(desired, observed);
  }
  getReplicas(gvk: GVK, obj: KubeObject): ReplicaResult {
    return this.handler(gvk, 'getReplicas', 'InterpretReplica')(obj);
  }
  reviseReplica(gvk: GVK, obj: KubeObject, replicas: number): KubeObject {
    return this.handler(gvk, 'reviseReplica', 'ReviseReplica')(obj, replicas);
  }
  aggregateStatus(gvk: GVK, obj: KubeObject, items: AggregatedStatusItem[] | null | undefined): KubeObject {
    return this.handler(gvk, 'aggregateStatus', 'AggregateStatus')(obj, items);
  }
  interpretHealth(gvk: GVK, obj: KubeObject): boolean {
    return this.handler(gvk, 'interpretHealth', 'InterpretHealth')(obj);
  }
  getDependencies(gvk: GVK, obj: KubeObject): DependentObjectReference[] {
    return this.handler(gvk, 'getDependencies', 'InterpretDependency')(obj);
  }
  reflectStatus(gvk: GVK, obj: KubeObject): unknown {
    const h = this.handlers.get(gvkKey(gvk))?.reflectStatus;
    if (h) return h(obj);
    return reflectWholeStatus(obj);
  }
}

/** The default reflection: `.status` as-is; absent gives null; a non-object is an error. */
export function reflectWholeStatus(obj: KubeObject): unknown {
  const status = obj.status;
  if (status === undefined || status === null) return null;
  if (typeof status !== 'object' || Array.isArray(status)) {
    const goType = Array.isArray(status) ? '[]interface {}' : typeof status === 'number' ? 'int64' : typeof status === 'boolean' ? 'bool' : 'string';
    throw new InterpreterError(`.status accessor error: ${String(status)} is of the type ${goType}, expected map[string]interface{}`, 'InterpretStatus');
  }
  return status;
}

const SERVICE_ACCOUNT_TOKEN = 'kubernetes.io/service-account-token';

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A member set explicitly to null (a Lua script is given it as absent). */
function isNullField(obj: unknown, key: string): boolean {
  return isMap(obj) && Object.prototype.hasOwnProperty.call(obj, key) && obj[key] === null;
}

/**
 * Karmada's native Retain where it reads what the built-in Lua scripts cannot see: a field the member's
 * object has as an explicit `null` (the Lua conversion drops null members, so a script takes it for
 * absent). `retain` runs the built-in script; this decides around it. Only the built-in layer goes
 * through here: a user's copy of a built-in script behaves as that script does in Karmada's Lua layer.
 */
export function retainWithNulls(gvk: GVK, desired: KubeObject, observed: KubeObject, retain: (desired: KubeObject, observed: KubeObject) => KubeObject): KubeObject {
  if (gvk.apiVersion === 'v1' && gvk.kind === 'Secret' && desired.type === SERVICE_ACCOUNT_TOKEN && isNullField(observed, 'data')) {
    // retainSecretServiceAccountToken: unstructured.NestedStringMap on a null `data` is an accessor error.
    throw new InterpreterError('failed to get .data from desired.Object: .data accessor error: <nil> is of the type <nil>, expected map[string]interface{}', 'Retain');
  }
  const out = retain(desired, observed);
  if (gvk.apiVersion === 'v1' && gvk.kind === 'PersistentVolume' && isNullField(observed.spec, 'claimRef')) {
    // retainPersistentVolumeFields copies `spec.claimRef` whenever the member has the field, null included.
    return { ...out, spec: { ...(isMap(out.spec) ? out.spec : {}), claimRef: null } };
  }
  return out;
}
