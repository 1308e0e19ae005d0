import { describe, expect, it } from 'vitest';
import { SarAuthorizer, subjectAccessReview } from '../../src/apiserver/authz.js';
import { requestInfo } from '../../src/apiserver/request-info.js';
import { forbiddenMessage } from '../../src/apiserver/status.js';

const user = { name: 'alice', groups: ['team-a', 'system:authenticated'], extra: { scopes: ['x'] }, uid: 'u1' };
const proxy = requestInfo('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy/api/v1/namespaces');

function fakeHost(answers: boolean[]) {
  const asked: any[] = [];
  return {
    asked,
    async request<T>(_m: string, _p: string, opts?: { body?: unknown }): Promise<T> {
      asked.push(opts?.body);
      return { status: { allowed: answers[Math.min(asked.length - 1, answers.length - 1)], reason: 'because' } } as T;
    },
  };
}

describe('SubjectAccessReview authorization', () => {
  it('asks the host with the resource attributes of the request and the whole user', () => {
    expect(subjectAccessReview(user, proxy)).toEqual({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: {
        user: 'alice',
        groups: ['team-a', 'system:authenticated'],
        extra: { scopes: ['x'] },
        uid: 'u1',
        resourceAttributes: { verb: 'get', group: 'cluster.karmada.io', version: 'v1alpha1', resource: 'clusters', subresource: 'proxy', name: 'member1' },
      },
    });
    expect(subjectAccessReview(user, requestInfo('GET', '/openapi/v2')).spec).toMatchObject({ nonResourceAttributes: { path: '/openapi/v2', verb: 'get' } });
  });

  it('caches allowed and denied answers for their own TTLs', async () => {
    let now = 0;
    const host = fakeHost([false, true]);
    const a = new SarAuthorizer(host, { allowTtlMs: 1000, denyTtlMs: 100, now: () => now });
    expect((await a.authorize(user, proxy)).allowed).toBe(false);
    now = 50;
    expect((await a.authorize(user, proxy)).allowed).toBe(false);
    expect(host.asked).toHaveLength(1);
    now = 150; // the denial expired: asked again, now allowed
    expect((await a.authorize(user, proxy)).allowed).toBe(true);
    now = 1000;
    expect((await a.authorize(user, proxy)).allowed).toBe(true);
    expect(host.asked).toHaveLength(2);
    now = 1200;
    await a.authorize(user, proxy);
    expect(host.asked).toHaveLength(3);
  });

  it('asks once for concurrent identical requests, and separately for another user or verb', async () => {
    const host = fakeHost([true]);
    const a = new SarAuthorizer(host);
    await Promise.all([a.authorize(user, proxy), a.authorize(user, proxy), a.authorize(user, proxy)]);
    expect(host.asked).toHaveLength(1);
    await a.authorize({ ...user, name: 'bob' }, proxy);
    await a.authorize(user, requestInfo('POST', '/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy/api/v1/namespaces'));
    expect(host.asked).toHaveLength(3);
  });

  it("words a refusal as kubectl prints the host's", () => {
    expect(forbiddenMessage('alice', proxy)).toBe('clusters.cluster.karmada.io "member1" is forbidden: User "alice" cannot get resource "clusters/proxy" in API group "cluster.karmada.io" at the cluster scope');
    expect(forbiddenMessage('alice', requestInfo('GET', '/apis/cluster.karmada.io/v1alpha1/clusters'))).toBe('clusters.cluster.karmada.io is forbidden: User "alice" cannot list resource "clusters" in API group "cluster.karmada.io" at the cluster scope');
    expect(forbiddenMessage('alice', requestInfo('GET', '/apis/search.karmada.io/v1alpha1/namespaces/ns/things'))).toContain('in the namespace "ns"');
    expect(forbiddenMessage('alice', requestInfo('GET', '/openapi/v2'))).toBe('forbidden: User "alice" cannot get path "/openapi/v2"');
  });
});
