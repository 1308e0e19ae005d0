// MultiClusterService admission (src/validation/multi-cluster-service.ts): Karmada's pkg/webhook/multiclusterservice.
import { describe, expect, it } from 'vitest';
import { errorText } from '../../src/validation/field-errors.js';
import { mutate, validate } from '../../src/validation/rules.js';
import { ROUTES } from '../../src/webhook/review.js';

const mcs = (spec: Record<string, unknown>, name = 'web') => ({ apiVersion: 'networking.karmada.io/v1alpha1', kind: 'MultiClusterService', metadata: { name, namespace: 'ns' }, spec });
const create = (o: Record<string, unknown>) => validate('MultiClusterService', { operation: 'CREATE', namespace: 'ns', object: o }).map(errorText);

describe('MultiClusterService: validating webhook', () => {
  it('accepts CrossCluster with named ports and provider/consumer clusters', () => {
    expect(create(mcs({ types: ['CrossCluster'], ports: [{ name: 'http', port: 80 }, { port: 443 }], providerClusters: [{ name: 'member1' }], consumerClusters: [{ name: 'member2' }] }))).toEqual([]);
  });

  it('the name must be a DNS-1035 label (it names the Service)', () => {
    expect(create(mcs({ types: ['CrossCluster'] }, '1web'))).toEqual([
      `metadata.name: Invalid value: "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    ]);
  });

  it('ports: names unique DNS-1123 labels, numbers 1-65535', () => {
    expect(create(mcs({ types: ['CrossCluster'], ports: [{ name: 'http', port: 80 }, { name: 'http', port: 0 }, { name: 'Bad_Name', port: 70000 }] }))).toEqual([
      'spec.ports[1].name: Duplicate value: "http"',
      'spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      `spec.ports[2].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      'spec.ports[2].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
    ]);
  });

  it('types: known ones, one only', () => {
    expect(create(mcs({ types: ['CrossCluster', 'LoadBalancer'] }))).toEqual(['spec.types: Invalid value: ["CrossCluster","LoadBalancer"]: MultiClusterService types should not contain more than one type']);
    expect(create(mcs({ types: ['NodePort'] }))).toEqual(['spec.types[0]: Invalid value: "NodePort": ExposureType Error']);
  });

  it("cluster names as Karmada's ValidateClusterName, at Karmada's spec.range paths", () => {
    expect(create(mcs({ types: ['CrossCluster'], providerClusters: [{ name: 'Member_1' }], consumerClusters: [{ name: 'm'.repeat(49) }] }))).toEqual([
      `spec.range.providerClusters[0]: Invalid value: "Member_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      `spec.range.consumerClusters[0]: Invalid value: "${'m'.repeat(49)}": must be no more than 48 characters`,
    ]);
  });

  it('types are immutable', () => {
    const errs = validate('MultiClusterService', { operation: 'UPDATE', namespace: 'ns', object: mcs({ types: ['LoadBalancer'] }), oldObject: mcs({ types: ['CrossCluster'] }) }).map(errorText);
    expect(errs).toEqual(['spec.types: Invalid value: ["CrossCluster"]: MultiClusterService types are immutable']);
    expect(validate('MultiClusterService', { operation: 'UPDATE', namespace: 'ns', object: mcs({ types: ['CrossCluster'], consumerClusters: [{ name: 'member2' }] }), oldObject: mcs({ types: ['CrossCluster'] }) })).toEqual([]);
  });
});

describe('MultiClusterService: mutating webhook', () => {
  it('stamps a permanent id once', () => {
    const first = mutate('MultiClusterService', { operation: 'CREATE', namespace: 'ns', object: mcs({ types: ['CrossCluster'] }) }, { uuid: () => 'id-1' }).object as any;
    expect(first.metadata.labels).toEqual({ 'multiclusterservice.karmada.io/permanent-id': 'id-1' });
    const again = mutate('MultiClusterService', { operation: 'UPDATE', namespace: 'ns', object: first }, { uuid: () => 'id-2' }).object as any;
    expect(again.metadata.labels['multiclusterservice.karmada.io/permanent-id']).toBe('id-1');
  });
});

describe('MultiClusterService: webhook routes', () => {
  it("served at Karmada's paths", () => {
    expect(ROUTES.find((r) => r.path === '/validate-multiclusterservice')).toMatchObject({ mode: 'validate', kind: 'MultiClusterService', operations: ['CREATE', 'UPDATE'] });
    expect(ROUTES.find((r) => r.path === '/mutate-multiclusterservice')).toMatchObject({ mode: 'mutate', kind: 'MultiClusterService', operations: ['CREATE', 'UPDATE'] });
  });
});
