/** Names, shapes and rule order of the resource interpreter operations (spec §1). */
import type { NodeClaim, ReplicaRequirements as PodReplicaRequirements } from '../lua/podspec.js';

export type Operation =
  | 'Retain'
  | 'InterpretReplica'
  | 'InterpretComponent'
  | 'ReviseReplica'
  | 'InterpretStatus'
  | 'AggregateStatus'
  | 'InterpretHealth'
  | 'InterpretDependency';

/** Rule order everywhere: karmadactl, the webhook and `--check` output. */
export const OPERATIONS: readonly Operation[] = [
  'Retain',
  'InterpretReplica',
  'InterpretComponent',
  'ReviseReplica',
  'InterpretStatus',
  'AggregateStatus',
  'InterpretHealth',
  'InterpretDependency',
];

/** `spec.customizations` field holding each operation's script. */
export const CUSTOMIZATION_FIELD: Record<Operation, string> = {
  Retain: 'retention',
  InterpretReplica: 'replicaResource',
  InterpretComponent: 'componentResource',
  ReviseReplica: 'replicaRevision',
  InterpretStatus: 'statusReflection',
  AggregateStatus: 'statusAggregation',
  InterpretHealth: 'healthInterpretation',
  InterpretDependency: 'dependencyInterpretation',
};

/** Global Lua function each operation calls. */
export const LUA_FUNCTION: Record<Operation, string> = {
  Retain: 'Retain',
  InterpretReplica: 'GetReplicas',
  InterpretComponent: 'GetComponents',
  ReviseReplica: 'ReviseReplica',
  InterpretStatus: 'ReflectStatus',
  AggregateStatus: 'AggregateStatus',
  InterpretHealth: 'InterpretHealth',
  InterpretDependency: 'GetDependencies',
};

/** Operation names are matched case-insensitively, as Karmada does. */
export function parseOperation(name: string): Operation | null {
  const l = name.toLowerCase();
  return OPERATIONS.find((o) => o.toLowerCase() === l) ?? null;
}

export function unsupportedOperationMessage(name: string, capital = false): string {
  return `${capital ? 'Operation' : 'operation'} ${name} is not supported. Use one of: ${OPERATIONS.join(', ')}`;
}

export type Health = 'Healthy' | 'Unhealthy' | 'Unknown';

export type KubeObject = Record<string, unknown> & { apiVersion?: string; kind?: string };

export interface AggregatedStatusItem {
  clusterName: string;
  status?: unknown;
  applied?: boolean;
  appliedMessage?: string;
  health?: Health | string;
  [extra: string]: unknown;
}

export type { NodeClaim };

/** What a script may return: like a pod's requirements, but quantities may also be JSON numbers. */
export type ReplicaRequirements = Omit<PodReplicaRequirements, 'resourceRequest'> & {
  resourceRequest?: Record<string, string | number>;
};

export interface Component {
  name: string;
  replicas: number;
  replicaRequirements?: Omit<ReplicaRequirements, 'namespace'>;
}

export interface DependentObjectReference {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
  labelSelector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] };
}

export interface ReplicaResult {
  replicas: number;
  requirements: ReplicaRequirements | null;
}

/** A ResourceInterpreterCustomization as read from YAML. */
export interface RIC {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; [k: string]: unknown };
  spec?: {
    target?: { apiVersion?: string; kind?: string };
    customizations?: Partial<Record<string, { luaScript?: string } | null>>;
  };
}

export interface GVK {
  apiVersion: string;
  kind: string;
}

export function gvkKey(g: GVK): string {
  return `${g.apiVersion}/${g.kind}`;
}

export function gvkOf(obj: KubeObject): GVK {
  return { apiVersion: typeof obj.apiVersion === 'string' ? obj.apiVersion : '', kind: typeof obj.kind === 'string' ? obj.kind : '' };
}

/** Go's `schema.GroupVersionKind.String()` form used in error texts: `apps/v1, Kind=Deployment`. */
export function gvkString(g: GVK): string {
  const i = g.apiVersion.indexOf('/');
  const group = i < 0 ? '' : g.apiVersion.slice(0, i);
  const version = i < 0 ? g.apiVersion : g.apiVersion.slice(i + 1);
  return `${group}/${version}, Kind=${g.kind}`;
}

/** Every interpreter failure carries the text Karmada would show. */
export class InterpreterError extends Error {
  constructor(
    message: string,
    readonly operation?: Operation,
  ) {
    super(message);
    this.name = 'InterpreterError';
  }
}
