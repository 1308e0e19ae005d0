import { describe, expect, it } from 'vitest';
import { clusterRV, decodeContinue, decodeMultiClusterRV, encodeContinue, encodeMultiClusterRV, isMultiClusterRV } from '../../src/search/encoding.js';

const b64 = (s: string) => Buffer.from(s).toString('base64url');

describe('multi-cluster resourceVersion (karmada-search.md 5.3)', () => {
  it('encodes the map with sorted keys, no spaces, base64url without padding, as Karmada', () => {
    const rv = { zero: false, byCluster: new Map([['cluster2', '5678'], ['cluster1', '1234']]) };
    expect(encodeMultiClusterRV(rv)).toBe('eyJjbHVzdGVyMSI6IjEyMzQiLCJjbHVzdGVyMiI6IjU2NzgifQ');
    expect(encodeMultiClusterRV({ zero: false, byCluster: new Map([['', '1'], ['cluster2', '2']]) })).toBe(b64('{"":"1","cluster2":"2"}'));
    expect(encodeMultiClusterRV({ zero: false, byCluster: new Map() })).toBe('');
    expect(encodeMultiClusterRV({ zero: true, byCluster: new Map() })).toBe('0');
  });

  it('decodes what it encodes; "0" is zero for every cluster; anything undecodable is no resourceVersion', () => {
    const d = decodeMultiClusterRV(b64('{"cluster1":"1","cluster2":"2"}'));
    expect([...d.byCluster]).toEqual([['cluster1', '1'], ['cluster2', '2']]);
    expect(clusterRV(d, 'cluster3')).toBe('');
    const zero = decodeMultiClusterRV('0');
    expect(zero.zero).toBe(true);
    expect(clusterRV(zero, 'any')).toBe('0');
    for (const bad of ['1234', 'not base64!', b64('[1,2]'), b64('{"a":')]) expect(decodeMultiClusterRV(bad).byCluster.size).toBe(0);
    expect(isMultiClusterRV('1234')).toBe(false);
    expect(isMultiClusterRV(b64('{"m1":"3"}'))).toBe(true);
  });
});

describe('continue token (karmada-search.md 5.4)', () => {
  it('writes rv, cluster, continue in that order and nothing without a cluster', () => {
    expect(encodeContinue({ rv: '123', cluster: 'cluster1', continue: '1' })).toBe(b64('{"rv":"123","cluster":"cluster1","continue":"1"}'));
    expect(encodeContinue({ rv: '123', cluster: 'cluster1', continue: '' })).toBe(b64('{"rv":"123","cluster":"cluster1"}'));
    expect(encodeContinue({ rv: '', cluster: '', continue: '' })).toBe('');
  });

  it('reads Karmada tokens and ignores undecodable ones', () => {
    expect(decodeContinue(b64('{"cluster":"cluster1","continue":"1"}'))).toEqual({ rv: '', cluster: 'cluster1', continue: '1' });
    expect(decodeContinue('garbage!')).toBeUndefined();
    expect(decodeContinue('')).toBeUndefined();
  });
});
