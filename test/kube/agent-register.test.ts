import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../src/api/generated/types.js';
import { desiredClusterSpec, registrationProblem } from '../../src/kube/agent-register.js';
import { clusterNameProblem } from '../../src/cli/commands/agent.js';

const cluster = (name: string, spec: Cluster['spec']): Cluster => ({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name }, spec });

describe('registrationProblem (Karmada ClusterRegisterOption.Validate for an agent)', () => {
  it('registers a new name and ID', () => {
    expect(registrationProblem([cluster('a', { syncMode: 'Push' })], 'edge', 'uid-1')).toBeUndefined();
  });

  it('adopts the Cluster with this name and this ID, whatever its syncMode (a restarted agent, a member joined before)', () => {
    expect(registrationProblem([cluster('edge', { syncMode: 'Pull', id: 'uid-1' })], 'edge', 'uid-1')).toBeUndefined();
    expect(registrationProblem([cluster('edge', { syncMode: 'Push', id: 'uid-1' })], 'edge', 'uid-1')).toBeUndefined();
  });

  it('refuses a Push cluster of the same name that is not this member, saying what to do', () => {
    const p = registrationProblem([cluster('member2', { syncMode: 'Push', apiEndpoint: 'https://x' })], 'member2', 'uid-1');
    expect(p).toContain('the cluster name member2 has been registered (syncMode Push, no cluster ID');
    expect(p).toContain('uid-1');
    expect(p).toContain('another --cluster-name');
  });

  it('refuses a name registered by another member, and this member under another name', () => {
    expect(registrationProblem([cluster('edge', { syncMode: 'Pull', id: 'uid-2' })], 'edge', 'uid-1')).toContain('syncMode Pull, cluster ID uid-2');
    expect(registrationProblem([cluster('old-name', { syncMode: 'Pull', id: 'uid-1' })], 'edge', 'uid-1')).toContain('registered as cluster old-name: run the agent with --cluster-name old-name');
  });
});

describe('desiredClusterSpec', () => {
  it('sets Pull, the id and the flags, keeping what the agent does not own', () => {
    const spec = desiredClusterSpec({ syncMode: 'Push', taints: [{ key: 'k', effect: 'NoSchedule' }], apiEndpoint: 'https://old', region: 'r0' }, { clusterName: 'e', zones: ['z1'] }, 'uid-1', { insecureSkipTLSVerification: false });
    expect(spec).toEqual({ syncMode: 'Pull', id: 'uid-1', taints: [{ key: 'k', effect: 'NoSchedule' }], region: 'r0', zones: ['z1'] });
  });

  it('takes the member kubeconfig\'s proxy over --proxy-server-address, and its insecure-skip-tls-verify', () => {
    expect(desiredClusterSpec(undefined, { clusterName: 'e', proxyURL: 'http://flag', apiEndpoint: 'https://m' }, 'u', { insecureSkipTLSVerification: true, proxyURL: 'http://kc' })).toEqual({
      syncMode: 'Pull',
      id: 'u',
      apiEndpoint: 'https://m',
      proxyURL: 'http://kc',
      insecureSkipTLSVerification: true,
    });
  });
});

describe('clusterNameProblem', () => {
  it('takes DNS-1123 labels of at most 48 characters', () => {
    expect(clusterNameProblem('member2-pull')).toBeUndefined();
    expect(clusterNameProblem(undefined)).toContain('--cluster-name is required');
    expect(clusterNameProblem('Edge_1')).toContain('lowercase RFC 1123 label');
    expect(clusterNameProblem('a'.repeat(49))).toContain('no more than 48 characters');
  });
});
