/**
 * The embedded control plane: the in-memory store, the simulated member clusters, the admission
 * webhooks, the core's controllers on the runner, the real scheduler and interpreter, and a virtual
 * clock. `karmada-lite plan`, the scenarios and the bench drive it.
 */
import { ClusterConditionReady, ClusterReadyMessage, ClusterReadyReason, DefaultClusterFailureThresholdSeconds, ResourceBindingPermanentIDLabel } from '../api/constants.js';
import { coreControllers, selectControllers } from '../core/controllers.js';
import { desiredClusterTaints } from '../core/taint.js';
import { noExecuteEvictionMode } from '../core/taint-manager.js';
import { BUILTIN_KINDS, findBuiltinKind } from '../api/kubernetes-kinds.js';
import { CLUSTER, is, isTemplateType, RIC } from '../core/kinds.js';
import { deepClone } from '../json/value.js';
import { describeRef, refOf, rfc3339, type KObject, type ObjectRef } from '../core/object.js';
import { withCoreDefaults, type CoreOptions, type DependentObjectReference, type Interpreter, type ScheduleFn } from '../core/ports.js';
import { createInterpreter, type Interpreter as RealInterpreter, type InterpreterOptions } from '../interpreter/interpreter.js';
import { configurationFollower, createWebhookInterpreter, RIWC, type WebhookCaller, type WebhookInterpreter } from '../interpreter/webhook-interpreter.js';
import { schedule, type ScheduleOptions } from '../scheduler/index.js';
import type { Cluster } from '../api/generated/types.js';
import { isAdmissionKind, mutate } from '../validation/rules.js';
import { Runner, type RunnerOptions, type RunStats } from '../runtime/runner.js';
import { EmbeddedStore, type Admission } from './embedded.js';
import { embeddedMemberCapacity } from './member-capacity.js';
import { MemberSimulator, type MemberOverride } from './members.js';
import type { WatchEvent } from '../runtime/store-port.js';

export interface ControlPlaneOptions {
  /** Virtual time at start. Default 2024-01-01T00:00:00Z, so that output is reproducible. */
  start?: Date;
  /** Freeze stored objects (catches reconcilers mutating what they read). Default true. */
  freeze?: boolean;
  core?: Partial<CoreOptions>;
  /** Replace the interpreter (tests); default: the real one, following the RICs in the store. */
  interpreter?: Interpreter;
  /**
   * Use the built-in Lua interpreters of interpreters/ for native kinds (default true). false answers
   * native kinds with the TypeScript native layer only, as Karmada's own native interpreter does.
   */
  builtinInterpreters?: boolean;
  /** Replace the scheduler (tests); default: src/scheduler. */
  schedule?: ScheduleFn;
  /** Told about every reconcile, as the controller's metrics are (tests of them). */
  onReconcile?: RunnerOptions['onReconcile'];
  /** Simulate member workloads rolling out healthy. Default true. */
  simulateMembers?: boolean;
  /** Run the mutating webhooks on writes. Default true. */
  admission?: boolean;
  /** Failed reconciles retried at once this many times before waiting for the clock. Default 5. */
  immediateRetries?: number;
  /** Copy objects on write (default true); the bench turns it off with freeze. */
  cloneOnWrite?: boolean;
  /** Keep at most this many events. Default: all. */
  maxEvents?: number;
  /**
   * Call the interpreter webhooks of the ResourceInterpreterWebhookConfigurations in the store through
   * this caller (plan). Their answers arrive asynchronously: settle with settleAsync().
   */
  interpreterWebhooks?: WebhookCaller;
  /** `--interpreters` and `--health-checks` (src/interpreter/library.ts): the third-party and health check layers. */
  interpreterLibraries?: Pick<InterpreterOptions, 'library' | 'healthChecks'>;
}

export const DEFAULT_START = new Date('2024-01-01T00:00:00Z');

/** Adapts src/interpreter to the core's port, following the RICs stored in the control plane. */
export function interpreterPort(real: RealInterpreter): Interpreter {
  return {
    hookEnabled: (t, op) => real.hookEnabled({ apiVersion: t.apiVersion, kind: t.kind }, op),
    getReplicas: (obj) => {
      const r = real.getReplicas(obj as never);
      return { replicas: r.replicas, replicaRequirements: (r.requirements as Record<string, unknown> | null) ?? null };
    },
    reviseReplica: (obj, n) => real.reviseReplica(obj as never, n) as unknown as KObject,
    retain: (d, o) => real.retain(d as never, o as never) as unknown as KObject,
    reflectStatus: (obj) => (real.reflectStatus(obj as never) ?? undefined) as Record<string, unknown> | undefined,
    interpretHealth: (obj) => real.interpretHealth(obj as never),
    // Only a `--health-checks` tree has more to say than interpretHealth: without one, the core is not asked to look.
    ...(real.hasHealthChecks
      ? { healthDetail: (obj: KObject) => (real.layerFor({ apiVersion: obj.apiVersion, kind: obj.kind }, 'InterpretHealth') === 'health-check' ? real.healthDetail(obj as never) : undefined) }
      : {}),
    // The core writes only the status of the result (the template's status subresource).
    aggregateStatus: (obj, items) => {
      const status = real.aggregatedStatus(obj as never, items as never);
      if (status !== undefined) return { ...obj, status };
      const { status: _, ...rest } = obj;
      return rest as KObject;
    },
    getDependencies: (obj) => real.getDependencies(obj as never) as DependentObjectReference[],
  };
}

/**
 * The real scheduler behind the core's port. It keeps the cluster list it was last given while the
 * Cluster objects are the same, so the scheduler's snapshot of them is built once, not per binding.
 */
export function realScheduler(options?: ScheduleOptions): ScheduleFn {
  let last: readonly Cluster[] = [];
  return (b, clusters, now, extras) => {
    if (clusters.length !== last.length || clusters.some((c, i) => c !== last[i])) last = clusters;
    if (!extras?.estimators && !extras?.workloadGroups) return schedule(b, last, null, now, options);
    return schedule(b, last, null, now, {
      ...options,
      ...(extras.estimators ? { estimators: extras.estimators } : {}),
      ...(extras.workloadGroups ? { workloadGroups: extras.workloadGroups } : {}),
    });
  };
}

export class ControlPlane {
  readonly store: EmbeddedStore;
  readonly runner: Runner;
  readonly members: MemberSimulator;
  private clock: Date;
  private readonly real?: RealInterpreter;
  private readonly webhooks?: WebhookInterpreter;
  private ricSignature = '';
  /** A RIC was written since the interpreter last followed them (checked before every reconcile). */
  private ricDirty = true;
  private readonly servedKinds = new Set<string>();
  private readonly extraKinds: Array<{ apiVersion: string; kind: string; plural: string }> = [];

  constructor(opts: ControlPlaneOptions = {}) {
    this.clock = new Date((opts.start ?? DEFAULT_START).getTime());
    this.members = new MemberSimulator(opts.simulateMembers ?? true);
    const useAdmission = opts.admission ?? true;
    let store!: EmbeddedStore;
    const admission: Admission = (op, obj, old) => karmadaAdmission(op, obj, old, () => store.nextId(), this.clock, opts.core?.clusterFailureThresholdSeconds, noExecuteEvictionMode(opts.core ?? {}) === 'failover-policy');
    store = new EmbeddedStore({
      clock: () => this.clock,
      freeze: opts.freeze ?? true,
      admission: useAdmission ? admission : undefined,
      memberStatus: (cluster, obj) => this.members.statusFor(cluster, obj),
      cloneOnWrite: opts.cloneOnWrite,
      maxEvents: opts.maxEvents,
    });
    this.store = store;
    store.watch((ev) => {
      if (ev.cluster === undefined && is(ev.object, RIC)) this.ricDirty = true;
    });
    const core = withCoreDefaults(opts.core);
    let interpreter = opts.interpreter;
    if (!interpreter) {
      this.real = createInterpreter({ nowMs: () => this.clock.getTime(), builtin: opts.builtinInterpreters ?? true, memoize: true, ...opts.interpreterLibraries });
      interpreter = interpreterPort(this.real);
    }
    let port = interpreter;
    let followHooks: ((c: readonly KObject[]) => void) | undefined;
    const real = this.real;
    if (opts.interpreterWebhooks && real) {
      // One plan asks each question once: its answers, failures included, stand for the whole run.
      this.webhooks = createWebhookInterpreter({ inner: port, declarative: (t, op) => real.layerFor(t, op) === 'customization', caller: opts.interpreterWebhooks, memo: true, keepFailures: true });
      port = this.webhooks;
      followHooks = configurationFollower(this.webhooks);
    }
    const sched = opts.schedule ?? realScheduler();
    // One object for every reconcile: the runner reuses its context while this and the clock are unchanged.
    const evaluators = { interpreter: port, schedule: sched, options: core, capacity: embeddedMemberCapacity(store) };
    this.runner = new Runner(this.store, selectControllers(coreControllers(core), core.controllers ?? ['*']), {
      clock: () => this.clock,
      context: () => {
        this.syncCustomizations();
        followHooks?.(this.store.list(RIWC));
        return evaluators;
      },
      immediateRetries: opts.immediateRetries ?? 5,
      deferrals: this.webhooks,
      onReconcile: opts.onReconcile,
    });
    this.runner.start();
  }

  get now(): Date {
    return new Date(this.clock.getTime());
  }

  /** Creates the object, or replaces an existing one's spec and metadata (like `kubectl apply`). */
  apply(obj: KObject, cluster?: string): KObject {
    if (cluster === undefined && isTemplateType(obj)) this.serveKind(obj);
    const existing = this.store.get(obj, obj.metadata?.namespace, obj.metadata?.name ?? '', cluster);
    if (!existing) {
      const created = this.store.create(obj, cluster, { keepUid: true });
      if (obj.status !== undefined && cluster === undefined && !is(obj, CLUSTER)) {
        // Status given in a file (e.g. a template's) is kept, as a status write would.
        return this.store.updateStatus({ ...created, status: obj.status });
      }
      return created;
    }
    const next = deepClone(obj);
    next.metadata = { ...next.metadata, resourceVersion: existing.metadata.resourceVersion };
    // Metadata Karmada or the server added is kept unless the user sets it.
    next.metadata.labels = { ...(existing.metadata.labels ?? {}), ...(obj.metadata.labels ?? {}) };
    next.metadata.annotations = { ...(existing.metadata.annotations ?? {}), ...(obj.metadata.annotations ?? {}) };
    if (!Object.keys(next.metadata.labels).length) delete next.metadata.labels;
    if (!Object.keys(next.metadata.annotations).length) delete next.metadata.annotations;
    if (!obj.metadata.finalizers && existing.metadata.finalizers) next.metadata.finalizers = existing.metadata.finalizers;
    if (!obj.metadata.ownerReferences && existing.metadata.ownerReferences) next.metadata.ownerReferences = existing.metadata.ownerReferences;
    const updated = this.store.update(next, cluster);
    if (obj.status !== undefined && cluster === undefined) {
      // A Cluster given again (a fleet file passed twice) keeps what joining gave it: the served APIs, Ready.
      const status = is(obj, CLUSTER) ? { ...(existing.status ?? {}), ...obj.status } : obj.status;
      return this.store.updateStatus({ ...updated, status });
    }
    return updated;
  }

  delete(ref: ObjectRef, cluster?: string): void {
    this.store.delete(ref, cluster);
  }

  get(ref: ObjectRef, cluster?: string): KObject | undefined {
    return this.store.get(ref, ref.namespace, ref.name, cluster);
  }

  /** Runs the controllers until nothing changes at the current time. */
  settle(): RunStats {
    return this.runner.runUntilIdle();
  }

  /** settle(), and again after every round of interpreter webhook calls the reconciles started. */
  async settleAsync(): Promise<RunStats> {
    let stats = this.settle();
    while (this.webhooks?.inflight()) {
      await this.webhooks.idle();
      // The runner enqueues the deferred keys in a promise callback of its own.
      await new Promise((r) => setImmediate(r));
      stats = this.settle();
    }
    return stats;
  }

  /** Moves the clock forward, stopping at every moment a controller asked to be woken, and settles. */
  advance(seconds: number): RunStats {
    const target = this.clock.getTime() + seconds * 1000;
    let last = this.settle();
    for (;;) {
      const next = this.runner.nextWakeAt();
      if (next === undefined || next > target) break;
      this.clock = new Date(Math.max(next, this.clock.getTime()));
      last = this.settle();
    }
    this.clock = new Date(target);
    return this.settle() ?? last;
  }

  /** Sets the virtual time (only forward): used by `plan --at`. */
  setTime(t: Date): void {
    if (t.getTime() > this.clock.getTime()) this.clock = new Date(t.getTime());
  }

  /** Pins a member object's status, or simulates it Healthy/Unhealthy, and writes it now. */
  setMemberState(cluster: string, ref: ObjectRef, o: MemberOverride): void {
    this.members.set(cluster, ref, o);
    const cur = this.store.get(ref, ref.namespace, ref.name, cluster);
    if (!cur) return;
    const status = this.members.statusFor(cluster, cur);
    if (status !== undefined) this.store.updateStatus({ ...cur, status }, cluster);
  }

  /** Kubernetes-style events, oldest first. */
  events() {
    return this.store.events();
  }

  /** Simulated members serve every kind a template uses, as if its CRD were installed there. */
  private serveKind(t: { apiVersion: string; kind: string }): void {
    const key = `${t.apiVersion}/${t.kind}`;
    if (this.servedKinds.has(key)) return;
    this.servedKinds.add(key);
    if (findBuiltinKind(t.apiVersion, t.kind)) return;
    this.extraKinds.push({ apiVersion: t.apiVersion, kind: t.kind, plural: `${t.kind.toLowerCase()}s` });
    for (const c of this.store.list(CLUSTER)) {
      if (c.metadata.annotations?.[SimulatedAPIsAnnotation] !== 'true') continue;
      this.store.updateStatus({ ...c, status: { ...(c.status ?? {}), apiEnablements: apiEnablementsFor([...BUILTIN_KINDS, ...this.extraKinds]) } });
    }
  }

  private syncCustomizations(): void {
    // Listing the RICs before every reconcile only to find them unchanged showed in profiles.
    if (!this.real || !this.ricDirty) return;
    this.ricDirty = false;
    const rics = this.store.list(RIC);
    const sig = rics.map((r) => `${r.metadata.name}@${r.metadata.resourceVersion}`).sort().join(',');
    if (sig === this.ricSignature) return;
    this.ricSignature = sig;
    this.real.setCustomizations(rics as never);
  }
}

/**
 * The mutating webhooks the embedded control plane runs on its own writes: permanent ids and
 * finalizers for policies, bindings and Works (src/validation), plus what Karmada's cluster
 * controller does for a joined cluster: its finalizer and, for a simulated member, a Ready condition.
 */
export function karmadaAdmission(
  op: 'create' | 'update',
  obj: KObject,
  old: KObject | undefined,
  uuid: () => string,
  now: Date,
  failureThresholdSeconds = DefaultClusterFailureThresholdSeconds,
  /** The cluster controller's NoExecute taints (noExecuteEvictionMode `failover-policy`). */
  noExecuteTaints = true,
): KObject {
  let out = obj;
  // The Work webhook's job (cleaning manifests, injecting the permanent id) is already done by the
  // binding controller, which renders manifests in that form with the id: only foreign Works need it.
  // The binding webhook only stamps a missing permanent id: nothing to do once it is there.
  const skip =
    (obj.kind === 'Work' && !!obj.metadata.labels?.['work.karmada.io/permanent-id']) ||
    (obj.kind === 'ResourceBinding' && !!obj.metadata.labels?.[ResourceBindingPermanentIDLabel]) ||
    (obj.kind === 'ClusterResourceBinding' && !!obj.metadata.labels?.['clusterresourcebinding.karmada.io/permanent-id']);
  if (!skip && isAdmissionKind(obj.kind) && obj.apiVersion.includes('karmada.io')) {
    const res = mutate(obj.kind, { operation: op === 'create' ? 'CREATE' : 'UPDATE', namespace: obj.metadata.namespace ?? '', object: obj as never, oldObject: old as never }, { uuid });
    out = res.object as unknown as KObject;
  }
  if (is(out, CLUSTER) && op === 'create') {
    out = deepClone(out);
    if (!out.status?.apiEnablements) {
      // A simulated member serves every built-in kind; ControlPlane.apply adds the kinds of other templates.
      out.status = { ...(out.status ?? {}), apiEnablements: apiEnablementsFor(BUILTIN_KINDS) };
      out.metadata.annotations = { ...(out.metadata.annotations ?? {}), [SimulatedAPIsAnnotation]: 'true' };
    }
    const conds = (out.status?.conditions ?? []) as Array<{ type: string }>;
    if (!conds.some((c) => c.type === ClusterConditionReady)) {
      out.status = {
        ...(out.status ?? {}),
        conditions: [...conds, { type: ClusterConditionReady, status: 'True', reason: ClusterReadyReason, message: ClusterReadyMessage, lastTransitionTime: rfc3339(now) }],
      };
    }
    // A cluster that comes in not ready has been so for a while: it carries the taints the cluster
    // controller gave it then, before any binding is scheduled (the scheduler sees health only in taints).
    const seeded = desiredClusterTaints(out, now, failureThresholdSeconds, noExecuteTaints);
    if (seeded.added.length) out.spec = { ...(out.spec ?? {}), taints: seeded.taints };
  }
  return out;
}

/** Marks a Cluster whose API list the embedded control plane simulates (it serves every template kind). */
export const SimulatedAPIsAnnotation = 'karmada-lite.io/simulated-apis';

export function apiEnablementsFor(kinds: ReadonlyArray<{ apiVersion: string; kind: string; plural: string }>): Array<{ groupVersion: string; resources: Array<{ name: string; kind: string }> }> {
  const byGv = new Map<string, Array<{ name: string; kind: string }>>();
  for (const k of kinds) {
    const list = byGv.get(k.apiVersion) ?? [];
    if (!list.some((r) => r.kind === k.kind)) list.push({ name: k.plural, kind: k.kind });
    byGv.set(k.apiVersion, list);
  }
  return [...byGv.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([groupVersion, resources]) => ({ groupVersion, resources }));
}

export type { WatchEvent, ObjectRef };
export { describeRef, refOf };
