import { describe, expect, it } from 'vitest';
import { clusterSignature, memberKubeConfig, secretRefOf, secretSignature } from '../../src/kube/credentials.js';

const cluster = (spec: Record<string, unknown>) => ({ metadata: { name: 'm1' }, spec: { apiEndpoint: 'https://127.0.0.1:6443', secretRef: { namespace: 'karmada-cluster', name: 'm1' }, ...spec } });
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('member credentials', () => {
  it('a new connection is made when the endpoint, the Secret named or TLS verification change, not for other fields', () => {
    const base = clusterSignature(cluster({}));
    expect(clusterSignature({ ...cluster({}), status: { conditions: [] } })).toBe(base);
    expect(clusterSignature(cluster({ taints: [{ key: 'k', effect: 'NoSchedule' }] }))).toBe(base);
    expect(clusterSignature(cluster({ apiEndpoint: 'https://127.0.0.1:6444' }))).not.toBe(base);
    expect(clusterSignature(cluster({ secretRef: { namespace: 'karmada-cluster', name: 'other' } }))).not.toBe(base);
    expect(clusterSignature(cluster({ insecureSkipTLSVerification: true }))).not.toBe(base);
  });

  it('a Secret counts as changed when its data does, whatever the order of keys or its labels', () => {
    const s = { metadata: { resourceVersion: '1' }, data: { token: b64('a'), caBundle: b64('ca') } };
    expect(secretSignature({ metadata: { resourceVersion: '2', labels: { x: 'y' } }, data: { caBundle: b64('ca'), token: b64('a') } })).toBe(secretSignature(s));
    expect(secretSignature({ ...s, data: { ...s.data, token: b64('b') } })).not.toBe(secretSignature(s));
    expect(secretSignature({ ...s, data: { ...s.data, caBundle: b64('other') } })).not.toBe(secretSignature(s));
  });

  it('the secretRef namespace defaults to karmada-cluster', () => {
    expect(secretRefOf({ spec: { secretRef: { name: 'm1' } } })).toEqual({ namespace: 'karmada-cluster', name: 'm1' });
    expect(secretRefOf({ spec: {} })).toBeUndefined();
  });

  it('builds the client from token and CA, and says what is missing', () => {
    const kc = memberKubeConfig(cluster({}), { data: { token: b64('t0k3n') } });
    expect(kc.getCurrentCluster()?.server).toBe('https://127.0.0.1:6443');
    expect(kc.getCurrentUser()?.token).toBe('t0k3n');
    expect(() => memberKubeConfig(cluster({}), { data: {} })).toThrow('the secret of cluster m1 has neither token nor kubeconfig');
  });
});
