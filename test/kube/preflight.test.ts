import { describe, expect, it } from 'vitest';
import { kubeconfigProblem, NO_KUBECONFIG } from '../../src/kube/preflight.js';

const sources = (files: string[], env: NodeJS.ProcessEnv = {}) => ({ env, home: '/home/u', exists: (p: string) => files.includes(p) });

describe('where the host kubeconfig comes from', () => {
  it('accepts a --kubeconfig file that exists and names the flag when it does not', () => {
    expect(kubeconfigProblem('/etc/host.config', sources(['/etc/host.config']))).toBeUndefined();
    expect(kubeconfigProblem('/etc/host.config', sources([]))).toBe("--kubeconfig /etc/host.config: no such file; give the path of the host cluster's kubeconfig");
  });

  it('follows KUBECONFIG, then ~/.kube/config, then the in-cluster service account, as kubectl does', () => {
    expect(kubeconfigProblem(undefined, sources(['/a'], { KUBECONFIG: '/a:/b' }))).toBeUndefined();
    expect(kubeconfigProblem(undefined, sources([], { KUBECONFIG: '/a' }))).toBe(`KUBECONFIG names /a, which does not exist; ${NO_KUBECONFIG}`);
    expect(kubeconfigProblem(undefined, sources(['/home/u/.kube/config']))).toBeUndefined();
    expect(kubeconfigProblem(undefined, sources(['/var/run/secrets/kubernetes.io/serviceaccount/token'], { KUBERNETES_SERVICE_HOST: '10.0.0.1' }))).toBeUndefined();
  });

  it('says what to do when there is none (instead of client-node\'s silent http://localhost:8080)', () => {
    expect(kubeconfigProblem(undefined, sources([]))).toBe(NO_KUBECONFIG);
    expect(NO_KUBECONFIG).toContain('give --kubeconfig <path>, set KUBECONFIG, or put one at ~/.kube/config');
  });
});
