import { describe, expect, it } from 'vitest';
import { requestInfo } from '../../src/apiserver/request-info.js';

describe('requestInfo (the RequestInfo kube-apiserver resolves from method and path)', () => {
  it('resolves the proxy subresource of a named cluster, with the inner path left in parts', () => {
    const i = requestInfo('GET', '/apis/cluster.karmada.io/v1alpha1/clusters/member1/proxy/api/v1/namespaces?watch=true');
    expect(i).toMatchObject({ isResourceRequest: true, verb: 'get', apiGroup: 'cluster.karmada.io', apiVersion: 'v1alpha1', resource: 'clusters', name: 'member1', subresource: 'proxy' });
    expect(i.parts).toEqual(['clusters', 'member1', 'proxy', 'api', 'v1', 'namespaces']);
  });

  it('maps methods to verbs, a get without a name to list or watch, a delete without one to deletecollection', () => {
    expect(requestInfo('GET', '/apis/cluster.karmada.io/v1alpha1/clusters').verb).toBe('list');
    expect(requestInfo('GET', '/apis/cluster.karmada.io/v1alpha1/clusters?watch=1').verb).toBe('watch');
    expect(requestInfo('GET', '/apis/cluster.karmada.io/v1alpha1/clusters?watch=false').verb).toBe('list');
    expect(requestInfo('POST', '/apis/cluster.karmada.io/v1alpha1/clusters').verb).toBe('create');
    expect(requestInfo('PUT', '/apis/cluster.karmada.io/v1alpha1/clusters/a/status')).toMatchObject({ verb: 'update', name: 'a', subresource: 'status' });
    expect(requestInfo('PATCH', '/apis/cluster.karmada.io/v1alpha1/clusters/a').verb).toBe('patch');
    expect(requestInfo('DELETE', '/apis/cluster.karmada.io/v1alpha1/clusters').verb).toBe('deletecollection');
    expect(requestInfo('DELETE', '/apis/cluster.karmada.io/v1alpha1/clusters/a').verb).toBe('delete');
  });

  it('takes the name of a list from a metadata.name field selector, as kube-apiserver does', () => {
    expect(requestInfo('GET', '/apis/cluster.karmada.io/v1alpha1/clusters?fieldSelector=metadata.name%3Dm1&watch=true')).toMatchObject({ verb: 'watch', name: 'm1' });
  });

  it('reads namespaces, and a namespace itself as the namespaces resource', () => {
    expect(requestInfo('GET', '/api/v1/namespaces/ns1/pods/p/log')).toMatchObject({ apiGroup: '', apiVersion: 'v1', namespace: 'ns1', resource: 'pods', name: 'p', subresource: 'log', verb: 'get' });
    expect(requestInfo('GET', '/api/v1/namespaces/ns1')).toMatchObject({ namespace: 'ns1', resource: 'namespaces', name: 'ns1' });
    expect(requestInfo('PUT', '/api/v1/namespaces/ns1/finalize')).toMatchObject({ resource: 'namespaces', name: 'ns1', subresource: 'finalize' });
  });

  it('leaves discovery and other paths as non-resource requests with the lower-case method as verb', () => {
    expect(requestInfo('GET', '/apis')).toMatchObject({ isResourceRequest: false, verb: 'get', path: '/apis' });
    expect(requestInfo('GET', '/apis/search.karmada.io')).toMatchObject({ isResourceRequest: false });
    expect(requestInfo('GET', '/apis/search.karmada.io/v1alpha1')).toMatchObject({ isResourceRequest: false, apiGroup: 'search.karmada.io', apiVersion: 'v1alpha1' });
    expect(requestInfo('POST', '/version')).toMatchObject({ isResourceRequest: false, verb: 'post' });
  });
});
