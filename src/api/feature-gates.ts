/**
 * `--feature-gates`, as Karmada's components take it (k8s.io/component-base's featuregate over Karmada's
 * pkg/features): every gate Karmada knows, with its default and stage, plus `AllAlpha` / `AllBeta`, which
 * turn on (or off) every alpha / beta gate the flag does not name itself. A gate karmada-lite has no
 * behaviour for is accepted with a warning (Karmada's deployments and e2e setup pass many of them); only a
 * name Karmada does not know either is an error.
 */

export type GateStage = 'Alpha' | 'Beta';

export interface GateSpec {
  /** Karmada's default. */
  default: boolean;
  stage: GateStage;
  /**
   * What karmada-lite does when it has no switch for the gate: `true`, the behaviour is always there (the
   * gate off is not supported); `false`, the feature is not implemented (the gate on is not supported).
   */
  lite: boolean;
}

/** Karmada's pkg/features/features.go (at v1.16's HEAD), the logging gates of component-base included. */
export const KarmadaFeatureGates = {
  Failover: { default: false, stage: 'Beta', lite: true },
  GracefulEviction: { default: true, stage: 'Beta', lite: true },
  PropagateDeps: { default: true, stage: 'Beta', lite: true },
  CustomizedClusterResourceModeling: { default: true, stage: 'Beta', lite: false },
  PropagationPolicyPreemption: { default: false, stage: 'Alpha', lite: false },
  MultiClusterService: { default: false, stage: 'Alpha', lite: false },
  ResourceQuotaEstimate: { default: false, stage: 'Alpha', lite: false },
  StatefulFailoverInjection: { default: false, stage: 'Alpha', lite: false },
  PriorityBasedScheduling: { default: true, stage: 'Beta', lite: true },
  FederatedQuotaEnforcement: { default: false, stage: 'Alpha', lite: false },
  LoggingAlphaOptions: { default: false, stage: 'Alpha', lite: false },
  LoggingBetaOptions: { default: true, stage: 'Beta', lite: false },
  ContextualLogging: { default: true, stage: 'Beta', lite: false },
  MultiplePodTemplatesScheduling: { default: false, stage: 'Alpha', lite: false },
  ControllerPriorityQueue: { default: true, stage: 'Beta', lite: false },
  WorkloadAffinity: { default: false, stage: 'Alpha', lite: false },
  SchedulingOvercommitProtection: { default: false, stage: 'Alpha', lite: false },
} as const satisfies Record<string, GateSpec>;

export type KarmadaGate = keyof typeof KarmadaFeatureGates;

const ALL_ALPHA = 'AllAlpha';
const ALL_BETA = 'AllBeta';

const isKarmadaGate = (name: string): name is KarmadaGate => Object.hasOwn(KarmadaFeatureGates, name);

/** strconv.ParseBool's spellings. */
function parseBool(name: string, value: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new Error(`invalid value of ${name}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

/** The flag's gates: each named one with its value, and AllAlpha / AllBeta when given. */
export interface GateSettings {
  /** Whether the gate is on: as named, else as AllAlpha / AllBeta say for its stage, else Karmada's default. */
  enabled(name: KarmadaGate): boolean;
  /** The gates whose value the flag decided (named, or through AllAlpha / AllBeta). */
  decided: KarmadaGate[];
}

/**
 * Parses `A=true,B=false`, in component-base's words on a mistake (`unrecognized feature gate: X`). A bare
 * name means true (karmada-lite's older syntax; component-base asks for the value).
 */
export function parseFeatureGates(spec: string | undefined): GateSettings {
  const named = new Map<KarmadaGate, boolean>();
  let allAlpha: boolean | undefined;
  let allBeta: boolean | undefined;
  for (const part of (spec ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim();
    const value = eq < 0 ? true : parseBool(name, part.slice(eq + 1).trim());
    if (name === ALL_ALPHA) allAlpha = value;
    else if (name === ALL_BETA) allBeta = value;
    else if (isKarmadaGate(name)) named.set(name, value);
    else throw new Error(`unrecognized feature gate: ${name}`);
  }
  const all = (stage: GateStage) => (stage === 'Alpha' ? allAlpha : allBeta);
  const enabled = (name: KarmadaGate) => named.get(name) ?? all(KarmadaFeatureGates[name].stage) ?? KarmadaFeatureGates[name].default;
  const decided = (Object.keys(KarmadaFeatureGates) as KarmadaGate[]).filter((g) => named.has(g) || all(KarmadaFeatureGates[g].stage) !== undefined);
  return { enabled, decided };
}

/**
 * The gates the flag set to a value this component does not follow: not among `implemented`, and not what
 * karmada-lite always does (`lite`). Each as `Name=value`, for a start-up warning.
 */
export function unsupportedGates(gates: GateSettings, implemented: readonly KarmadaGate[]): string[] {
  return gates.decided.filter((g) => !implemented.includes(g) && gates.enabled(g) !== KarmadaFeatureGates[g].lite).map((g) => `${g}=${gates.enabled(g)}`);
}

/** The start-up warning for those gates; undefined when there are none. */
export function unsupportedGatesWarning(gates: GateSettings, implemented: readonly KarmadaGate[]): string | undefined {
  const names = unsupportedGates(gates, implemented);
  if (names.length === 0) return undefined;
  return `feature gates not supported by karmada-lite, ignored: ${names.join(', ')} (it behaves as with each gate at its other value; see README "differences from Karmada")`;
}

/**
 * The gates of the reconcile core (controller and plan). PropagationPolicyPreemption and
 * StatefulFailoverInjection are off by default as in Karmada; Failover is on (Karmada: off), for the
 * v1.2-style taint eviction karmada-lite keeps by default (README "differs").
 */
export const CoreFeatureGates = ['PropagationPolicyPreemption', 'StatefulFailoverInjection', 'Failover', 'FederatedQuotaEnforcement', 'ResourceQuotaEstimate', 'WorkloadAffinity', 'MultiClusterService'] as const satisfies readonly KarmadaGate[];

export interface CoreGateOptions {
  policyPreemption: boolean;
  statefulFailoverInjection: boolean;
  /** FederatedQuotaEnforcement (alpha, off): bindings charged against the namespace's FederatedResourceQuotas. */
  federatedQuotaEnforcement: boolean;
  /** ResourceQuotaEstimate (alpha, off): the members' ResourceQuotas of the replicas' namespace bound the accurate estimate. */
  resourceQuotaEstimate: boolean;
  /** WorkloadAffinity (alpha, off): bindings' workload groups kept together or apart by the scheduler. */
  workloadAffinity: boolean;
  /** MultiClusterService (alpha, off): MultiClusterServices of type CrossCluster are acted on. */
  multiClusterService: boolean;
  /** Undefined unless the flag decided it (the core's default applies). */
  failover?: boolean;
  /** The start-up warning for gates the core does not follow. */
  warning?: string;
}

/** The core options the gates turn on. */
export function coreGateOptions(spec: string | undefined): CoreGateOptions {
  const g = parseFeatureGates(spec);
  const warning = unsupportedGatesWarning(g, CoreFeatureGates);
  return {
    policyPreemption: g.enabled('PropagationPolicyPreemption'),
    statefulFailoverInjection: g.enabled('StatefulFailoverInjection'),
    federatedQuotaEnforcement: g.enabled('FederatedQuotaEnforcement'),
    resourceQuotaEstimate: g.enabled('ResourceQuotaEstimate'),
    workloadAffinity: g.enabled('WorkloadAffinity'),
    multiClusterService: g.enabled('MultiClusterService'),
    ...(g.decided.includes('Failover') ? { failover: g.enabled('Failover') } : {}),
    ...(warning ? { warning } : {}),
  };
}
