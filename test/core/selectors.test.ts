import { describe, expect, it } from 'vitest';
import { clusterMatches, implicitPriority, matchLabelSelector, selectorPriority } from '../../src/core/selectors.js';
import type { KObject } from '../../src/core/object.js';

const tpl: KObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'nginx', namespace: 'default', labels: { app: 'nginx', tier: 'web' } } };
const cluster = (name: string, spec: Record<string, unknown> = {}, labels?: Record<string, string>): KObject => ({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name, labels }, spec });

describe('label selectors', () => {
  it('supports matchLabels and the four operators', () => {
    expect(matchLabelSelector(tpl.metadata.labels, { matchLabels: { app: 'nginx' } })).toBe(true);
    expect(matchLabelSelector(tpl.metadata.labels, { matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'db'] }] })).toBe(true);
    expect(matchLabelSelector(tpl.metadata.labels, { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web'] }] })).toBe(false);
    expect(matchLabelSelector(tpl.metadata.labels, { matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] })).toBe(true);
    expect(matchLabelSelector(tpl.metadata.labels, { matchExpressions: [{ key: 'app', operator: 'Exists' }] })).toBe(true);
  });
  it('treats an invalid selector as a mismatch', () => {
    expect(matchLabelSelector(tpl.metadata.labels, { matchExpressions: [{ key: 'app', operator: 'Bogus', values: ['x'] }] })).toBe(false);
    expect(matchLabelSelector(tpl.metadata.labels, { matchExpressions: [{ key: 'app', operator: 'In', values: [] }] })).toBe(false);
  });
});

describe('resource selector priority', () => {
  it('ranks name 3 > labels 2 > kind only 1 > mismatch 0', () => {
    expect(selectorPriority(tpl, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' })).toBe(3);
    expect(selectorPriority(tpl, { apiVersion: 'apps/v1', kind: 'Deployment', labelSelector: { matchLabels: { app: 'nginx' } } })).toBe(2);
    expect(selectorPriority(tpl, { apiVersion: 'apps/v1', kind: 'Deployment' })).toBe(1);
    expect(selectorPriority(tpl, { apiVersion: 'apps/v1', kind: 'StatefulSet' })).toBe(0);
  });
  it('lets a name decide alone: a wrong name is a mismatch even if labels match', () => {
    expect(selectorPriority(tpl, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'other', labelSelector: { matchLabels: { app: 'nginx' } } })).toBe(0);
  });
  it('requires exact apiVersion and namespace equality', () => {
    expect(selectorPriority(tpl, { apiVersion: 'apps/v1beta1', kind: 'Deployment' })).toBe(0);
    expect(selectorPriority(tpl, { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'other' })).toBe(0);
  });
  it('takes the best selector of a policy', () => {
    expect(implicitPriority(tpl, [{ apiVersion: 'apps/v1', kind: 'Deployment' }, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nginx' }])).toBe(3);
  });
});

describe('cluster affinity', () => {
  it('applies exclude first, then labels, fields, then names', () => {
    const c = cluster('member1', { region: 'eu', provider: 'aws', zones: ['eu-1a'] }, { tier: 'gold' });
    expect(clusterMatches(c, { clusterNames: ['member1'], exclude: ['member1'] })).toBe(false);
    expect(clusterMatches(c, { labelSelector: { matchLabels: { tier: 'gold' } } })).toBe(true);
    expect(clusterMatches(c, { fieldSelector: { matchExpressions: [{ key: 'region', operator: 'In', values: ['eu'] }] } })).toBe(true);
    expect(clusterMatches(c, { fieldSelector: { matchExpressions: [{ key: 'provider', operator: 'NotIn', values: ['aws'] }] } })).toBe(false);
    expect(clusterMatches(c, { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['eu-1a'] }] } })).toBe(true);
    expect(clusterMatches(c, { clusterNames: ['member2'] })).toBe(false);
    expect(clusterMatches(c, undefined)).toBe(true);
  });
});

describe('one matcher with the scheduler', () => {
  it('a selector Kubernetes would refuse to build matches nothing, even labels that equal it', () => {
    expect(matchLabelSelector({ 'bad key!': 'x' }, { matchLabels: { 'bad key!': 'x' } })).toBe(false);
    expect(matchLabelSelector({ app: 'x' }, { matchExpressions: [{ key: 'app', operator: 'Exists', values: ['x'] }] })).toBe(false);
    expect(matchLabelSelector({ app: 'x' }, { matchLabels: { app: 'x' } })).toBe(true);
  });
  it('fieldSelector zone expressions read spec.zones, as the scheduler does', () => {
    const c = { apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'm1' }, spec: { zones: ['z1', 'z2'], region: 'r1' } };
    expect(clusterMatches(c, { fieldSelector: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['z2'] }] } })).toBe(true);
    expect(clusterMatches(c, { fieldSelector: { matchExpressions: [{ key: 'region', operator: 'NotIn', values: ['r1'] }] } })).toBe(false);
  });
});
