import { describe, expect, it } from 'vitest';
import { fnv32a, generateBindingName, generateExecutionSpaceName, generateWorkName, getClusterName, safeEncodeString } from '../../src/api/constants.js';

describe('Karmada names', () => {
  it('names the Work of Deployment default/nginx nginx-687f7fb96f (FNV-1a of default-nginx-deployment)', () => {
    expect(fnv32a('default-nginx-deployment')).toBe(2439396529);
    expect(generateWorkName('Deployment', 'nginx', 'default')).toBe('nginx-687f7fb96f');
  });
  it('hashes cluster-scoped templates without a namespace and lowercases everything', () => {
    const n = generateWorkName('ClusterRole', 'System::Tom');
    expect(n.startsWith('system..tom-')).toBe(true);
    expect(n).toBe(`system..tom-${safeEncodeString(String(fnv32a('system..tom-clusterrole')))}`);
  });
  it('names bindings <name>-<kind> lowercased with colons turned into dots', () => {
    expect(generateBindingName('Deployment', 'nginx')).toBe('nginx-deployment');
    expect(generateBindingName('ClusterRole', 'system::tom')).toBe('system..tom-clusterrole');
  });
  it('maps clusters to karmada-es-<cluster> and back, and refuses other namespaces', () => {
    expect(generateExecutionSpaceName('member1')).toBe('karmada-es-member1');
    expect(getClusterName('karmada-es-member1')).toBe('member1');
    expect(() => getClusterName('default')).toThrow(/karmada-es-/);
  });
  it('encodes through the vowel-free alphabet by code point', () => {
    expect(safeEncodeString('0123456789')).toBe('fghjklmnpq'.split('').map((_, i) => 'bcdfghjklmnpqrstvwxz2456789'[(48 + i) % 27]).join(''));
  });
});
