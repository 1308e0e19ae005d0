/**
 * The simulated member clusters' own controllers: what status a workload has once applied. By default
 * every workload rolls out at once and is healthy; a test or `plan --status` can pin an object's
 * status, or make it Unhealthy (rolled out but never available).
 */
import type { KObject } from '../core/object.js';

export type SimulatedHealth = 'Healthy' | 'Unhealthy';

export interface MemberOverride {
  /** A fixed status, kept across spec updates. */
  status?: Record<string, unknown>;
  health?: SimulatedHealth;
}

export function memberKey(cluster: string, apiVersion: string, kind: string, namespace: string | undefined, name: string): string {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  return `${cluster}|${group}/${kind}|${namespace ?? ''}|${name}`;
}

export class MemberSimulator {
  private readonly overrides = new Map<string, MemberOverride>();

  constructor(private readonly enabled = true) {}

  set(cluster: string, obj: { apiVersion: string; kind: string; namespace?: string; name: string }, o: MemberOverride): void {
    this.overrides.set(memberKey(cluster, obj.apiVersion, obj.kind, obj.namespace, obj.name), o);
  }

  clear(cluster: string, obj: { apiVersion: string; kind: string; namespace?: string; name: string }): void {
    this.overrides.delete(memberKey(cluster, obj.apiVersion, obj.kind, obj.namespace, obj.name));
  }

  /** The status a member object gets after a write; undefined keeps what it has. */
  statusFor(cluster: string, obj: KObject): unknown {
    // Called on every member write; most runs pin nothing, so the key is only built when something is pinned.
    const o = this.overrides.size ? this.overrides.get(memberKey(cluster, obj.apiVersion, obj.kind, obj.metadata.namespace, obj.metadata.name ?? '')) : undefined;
    if (o?.status) return o.status;
    if (!this.enabled && !o?.health) return undefined;
    return simulatedStatus(obj, o?.health ?? 'Healthy');
  }
}

/** A plausible status for the common workload kinds; other kinds keep theirs. */
export function simulatedStatus(obj: KObject, health: SimulatedHealth): Record<string, unknown> | undefined {
  const gen = obj.metadata.generation ?? 1;
  const want = typeof obj.spec?.replicas === 'number' ? (obj.spec.replicas as number) : 1;
  const ok = health === 'Healthy';
  switch (obj.kind) {
    case 'Deployment': {
      const s: Record<string, unknown> = { observedGeneration: gen, replicas: want, updatedReplicas: want };
      if (ok && want > 0) Object.assign(s, { readyReplicas: want, availableReplicas: want });
      if (!ok && want > 0) s.unavailableReplicas = want;
      return s;
    }
    case 'ReplicaSet':
      return ok ? { observedGeneration: gen, replicas: want, readyReplicas: want, availableReplicas: want, fullyLabeledReplicas: want } : { observedGeneration: gen, replicas: want, readyReplicas: 0, availableReplicas: 0 };
    case 'StatefulSet':
      return {
        observedGeneration: gen,
        replicas: want,
        currentReplicas: want,
        updatedReplicas: want,
        readyReplicas: ok ? want : 0,
        availableReplicas: ok ? want : 0,
        currentRevision: `${obj.metadata.name}-1`,
        updateRevision: `${obj.metadata.name}-1`,
      };
    case 'DaemonSet':
      return { observedGeneration: gen, currentNumberScheduled: 1, numberMisscheduled: 0, desiredNumberScheduled: 1, numberReady: ok ? 1 : 0, updatedNumberScheduled: 1, numberAvailable: ok ? 1 : 0, ...(ok ? {} : { numberUnavailable: 1 }) };
    case 'Pod':
      return ok
        ? { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] }
        : { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }] };
    default:
      return undefined;
  }
}
