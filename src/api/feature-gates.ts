/** Karmada's `--feature-gates A=true,B=false` syntax; a bare name means true. Throws a usage message on a typo. */
export function parseGates<G extends string>(spec: string | undefined, known: readonly G[]): Partial<Record<G, boolean>> {
  const gates: Partial<Record<G, boolean>> = {};
  for (const part of (spec ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, value = 'true'] = part.split('=');
    if (!(known as readonly string[]).includes(name!)) throw new Error(`unknown feature gate ${name}; known gates: ${known.join(', ')}`);
    if (value !== 'true' && value !== 'false') throw new Error(`feature gate ${name} must be true or false, got ${value}`);
    gates[name as G] = value === 'true';
  }
  return gates;
}

/**
 * The gates of the reconcile core (controller and plan). PropagationPolicyPreemption and
 * StatefulFailoverInjection are off by default as in Karmada; Failover is on (Karmada: off), for the
 * v1.2-style taint eviction karmada-lite keeps by default (README "differs").
 */
export const CoreFeatureGates = ['PropagationPolicyPreemption', 'StatefulFailoverInjection', 'Failover'] as const;

/** The core options the gates turn on; failover is undefined unless the gate is named (the core's default applies). */
export function coreGateOptions(spec: string | undefined): { policyPreemption: boolean; statefulFailoverInjection: boolean; failover?: boolean } {
  const g = parseGates(spec, CoreFeatureGates);
  return { policyPreemption: g.PropagationPolicyPreemption ?? false, statefulFailoverInjection: g.StatefulFailoverInjection ?? false, failover: g.Failover };
}
