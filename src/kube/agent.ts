/**
 * `karmada-lite agent`: the member side of Pull mode (Karmada's karmada-agent). It registers its Cluster
 * on the control plane (agent-register.ts), then runs the controller's own machinery (controller.ts:
 * leader election, probes, metrics, interpreters, the runner) over a KubeStore that sees only this
 * agent's part of the host (its Cluster by name, the Works of `karmada-es-<cluster>`, the interpreter
 * configurations) and reaches its member with its own kubeconfig. In that store:
 *
 * - the execution and work-status controllers are the core's, with `executionSyncMode: 'Pull'`: they take
 *   the Works of this Pull cluster only (src/core/pull-cluster.ts), which the control plane leaves alone;
 * - the member probe the controller runs for Push clusters keeps the Cluster's Ready condition,
 *   kubernetesVersion and apiEnablements current, every `--cluster-status-update-frequency`;
 * - the Lease `karmada-cluster/<cluster>` is renewed (cluster-lease.ts) once the cluster was first ready.
 *
 * A host that stops answering leaves the member's objects as they are (nothing is reconciled without an
 * event); the informers retry and resume their watches when it is back.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { generateExecutionSpaceName } from '../api/constants.js';
import { EXECUTION } from '../core/execution.js';
import { CLUSTER, RIC, WORK } from '../core/kinds.js';
import { WORK_STATUS } from '../core/status.js';
import { RIWC } from '../interpreter/webhook-interpreter.js';
import { registerCluster, type RegisterOptions } from './agent-register.js';
import { ClusterLeaseRenewer } from './cluster-lease.js';
import { Controller, type ControllerOptions } from './controller.js';
import { RestClient } from './rest.js';
import type { KubeStore } from './store.js';

/** The controllers an agent runs: Karmada's agent's execution and workStatus (its clusterStatus is the store's member probe). */
export const AGENT_CONTROLLERS = [EXECUTION, WORK_STATUS] as const;

/** Karmada's leader election ID of an agent. */
export const agentLeaseName = (cluster: string) => `karmada-agent-${cluster}`;

export interface AgentOptions extends Omit<ControllerOptions, 'kubeconfig' | 'controllers' | 'leaseName' | 'probeIntervalMs' | 'store' | 'onCachesFilled'> {
  /** `--karmada-kubeconfig` (+ `--karmada-context`): the control plane. */
  karmadaKubeconfig: KubeConfig;
  /** `--kubeconfig` (+ `--context`), or the in-cluster service account: the member this agent serves. */
  memberKubeconfig: KubeConfig;
  register: RegisterOptions;
  /** `--cluster-status-update-frequency`: how often the member is probed and its Cluster status posted. */
  statusUpdateFrequencyMs: number;
  clusterLeaseDurationSeconds: number;
  clusterLeaseRenewIntervalFraction: number;
  /** Default `karmada-agent-<cluster>`. */
  leaseName?: string;
  /** Told after each Lease renewal that reached the host. */
  onLeaseRenewed?: (renewTime: string) => void;
}

export class Agent {
  readonly controller: Controller;
  private renewer?: ClusterLeaseRenewer;
  private stopping = false;

  constructor(private readonly opts: AgentOptions) {
    const name = opts.register.clusterName;
    this.controller = new Controller({
      ...opts,
      kubeconfig: opts.karmadaKubeconfig,
      controllers: [...AGENT_CONTROLLERS],
      leaseName: opts.leaseName ?? agentLeaseName(name),
      probeIntervalMs: opts.statusUpdateFrequencyMs,
      core: { ...opts.core, executionSyncMode: 'Pull' },
      store: {
        hostKinds: [CLUSTER, WORK, RIC],
        optionalHostKinds: [RIWC],
        hostScope: { namespace: generateExecutionSpaceName(name), clusterName: name },
        localMember: { name, kubeconfig: opts.memberKubeconfig },
        component: 'karmada-lite-agent',
      },
      onCachesFilled: (store) => this.startLease(store),
    });
  }

  get identity(): string {
    return this.controller.identity;
  }

  /** Registers the Cluster (an error here stops the agent before it campaigns), then runs the controllers. */
  async start(): Promise<void> {
    const host = new RestClient(this.opts.karmadaKubeconfig);
    const member = new RestClient(this.opts.memberKubeconfig);
    try {
      await registerCluster(host, member, this.opts.memberKubeconfig, this.opts.register, this.opts.log);
    } finally {
      host.close();
      member.close();
    }
    await this.controller.start();
  }

  /** Runs in the leader only, as Karmada's cluster status controller does. */
  private startLease(store: KubeStore): void {
    if (this.stopping) return;
    const name = this.opts.register.clusterName;
    this.renewer = new ClusterLeaseRenewer({
      rest: store.host.rest,
      clusterName: name,
      durationSeconds: this.opts.clusterLeaseDurationSeconds,
      renewIntervalMs: Math.max(1, Math.round(this.opts.clusterLeaseDurationSeconds * 1000 * this.opts.clusterLeaseRenewIntervalFraction)),
      clusterUid: () => store.host.existing(CLUSTER)?.get(undefined, name)?.metadata?.uid,
      ready: () => store.isMemberReady(name) === true,
      log: this.opts.log,
      onRenewed: this.opts.onLeaseRenewed,
    });
    this.renewer.start();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.renewer?.stop();
    await this.controller.stop();
  }
}
