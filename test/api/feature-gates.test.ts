import { describe, expect, it } from 'vitest';
import { coreGateOptions, KarmadaFeatureGates, parseFeatureGates, unsupportedGates, unsupportedGatesWarning } from '../../src/api/feature-gates.js';
import { parseFeatureGates as webhookGates } from '../../src/validation/binding.js';

describe('--feature-gates as Karmada components take them', () => {
  it('knows every gate of Karmada pkg/features with its default and stage', () => {
    expect(Object.keys(KarmadaFeatureGates).sort()).toEqual(
      [
        'ContextualLogging', 'ControllerPriorityQueue', 'CustomizedClusterResourceModeling', 'Failover', 'FederatedQuotaEnforcement', 'GracefulEviction',
        'LoggingAlphaOptions', 'LoggingBetaOptions', 'MultiClusterService', 'MultiplePodTemplatesScheduling', 'PriorityBasedScheduling', 'PropagateDeps',
        'PropagationPolicyPreemption', 'ResourceQuotaEstimate', 'SchedulingOvercommitProtection', 'StatefulFailoverInjection', 'WorkloadAffinity',
      ].sort(),
    );
    const g = parseFeatureGates(undefined);
    expect(g.decided).toEqual([]);
    expect(g.enabled('PropagateDeps')).toBe(true);
    expect(g.enabled('Failover')).toBe(false);
    expect(g.enabled('PropagationPolicyPreemption')).toBe(false);
  });

  it('AllAlpha and AllBeta turn on every gate of their stage the flag does not name; a named gate wins', () => {
    const g = parseFeatureGates('AllAlpha=true,AllBeta=true,WorkloadAffinity=false');
    expect(g.enabled('PropagationPolicyPreemption')).toBe(true);
    expect(g.enabled('MultiClusterService')).toBe(true);
    expect(g.enabled('Failover')).toBe(true);
    expect(g.enabled('WorkloadAffinity')).toBe(false);
    expect(g.decided).toHaveLength(Object.keys(KarmadaFeatureGates).length);
    const beta = parseFeatureGates('AllBeta=false');
    expect(beta.enabled('PropagateDeps')).toBe(false);
    expect(beta.enabled('StatefulFailoverInjection')).toBe(false);
    expect(beta.decided).not.toContain('StatefulFailoverInjection');
  });

  it('takes strconv.ParseBool values and refuses others and unknown names in component-base words', () => {
    expect(parseFeatureGates('Failover=T, PropagateDeps=0').enabled('Failover')).toBe(true);
    expect(parseFeatureGates('PropagateDeps=0').enabled('PropagateDeps')).toBe(false);
    expect(() => parseFeatureGates('Failover=yes')).toThrow('invalid value of Failover=yes, err: strconv.ParseBool: parsing "yes": invalid syntax');
    expect(() => parseFeatureGates('Preemption=true')).toThrow(/^unrecognized feature gate: Preemption$/);
  });

  it('names the gates set to a value karmada-lite does not follow, and only those', () => {
    const g = parseFeatureGates('AllAlpha=true,AllBeta=true');
    const names = unsupportedGates(g, ['PropagationPolicyPreemption', 'StatefulFailoverInjection', 'Failover']);
    expect(names).toContain('MultiClusterService=true');
    expect(names).toContain('CustomizedClusterResourceModeling=true');
    // Followed by the core, or what karmada-lite always does.
    expect(names.join()).not.toMatch(/PropagationPolicyPreemption|Failover|PropagateDeps|GracefulEviction|PriorityBasedScheduling/);
    expect(unsupportedGates(parseFeatureGates('PropagateDeps=false'), [])).toEqual(['PropagateDeps=false']);
    expect(unsupportedGatesWarning(parseFeatureGates('PropagateDeps=true,MultiClusterService=false'), [])).toBeUndefined();
  });

  it('the core takes the gates it follows and warns about the rest, instead of refusing them', () => {
    const o = coreGateOptions('AllAlpha=true,AllBeta=true');
    expect(o).toMatchObject({ policyPreemption: true, statefulFailoverInjection: true, failover: true, workloadAffinity: true, multiClusterService: true });
    expect(o.warning).toMatch(/^feature gates not supported by karmada-lite, ignored: .*ControllerPriorityQueue=true/);
    expect(coreGateOptions('Failover=false')).toEqual({ policyPreemption: false, statefulFailoverInjection: false, federatedQuotaEnforcement: false, resourceQuotaEstimate: false, workloadAffinity: false, multiClusterService: false, failover: false });
  });

  it('the webhook follows MultiplePodTemplatesScheduling and only warns about FederatedQuotaEnforcement', () => {
    const warnings: string[] = [];
    expect(webhookGates('AllAlpha=true,AllBeta=true', (m) => warnings.push(m))).toEqual({ MultiplePodTemplatesScheduling: true });
    expect(warnings).toEqual(['feature gates not supported by karmada-lite, ignored: FederatedQuotaEnforcement=true (it behaves as with each gate at its other value; see README "differences from Karmada")']);
    expect(() => webhookGates('Nope=true')).toThrow('unrecognized feature gate: Nope');
  });
});
