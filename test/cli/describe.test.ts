// renderDescription: the one view of a template, its binding, Works and events (pure: objects and a clock).
import { describe, expect, it } from 'vitest';
import { renderDescription } from '../../src/cli/fleet/describe.js';
import { humanDuration } from '../../src/cli/fleet/age.js';

const now = new Date('2026-01-01T12:00:00Z');
const ago = (s: number) => new Date(now.getTime() - s * 1000).toISOString();
const deployments = { group: 'apps', version: 'v1', resource: 'deployments', kind: 'Deployment', namespaced: true, verbs: [] };

describe('renderDescription', () => {
  it('lays out the binding\'s clusters, conditions, Works and events as kubectl describe does', () => {
    const text = renderDescription(
      {
        resource: deployments,
        template: { kind: 'Deployment', metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' }, annotations: { 'propagationpolicy.karmada.io/name': 'pp', 'propagationpolicy.karmada.io/namespace': 'shop' } } },
        binding: {
          metadata: { name: 'web-deployment', namespace: 'shop' },
          spec: { replicas: 3, clusters: [{ name: 'm1', replicas: 3 }] },
          status: { conditions: [{ type: 'Scheduled', status: 'True', reason: 'Success', message: 'ok', lastTransitionTime: ago(90) }], aggregatedStatus: [{ clusterName: 'm1', applied: true, health: 'Healthy' }] },
        },
        works: [{ kind: 'Work', metadata: { name: 'web-abc', namespace: 'karmada-es-m1', creationTimestamp: ago(600) }, status: { conditions: [{ type: 'Applied', status: 'True' }] } }],
        events: [
          { type: 'Normal', reason: 'Later', lastTimestamp: ago(10), source: { component: 'c' }, involvedObject: { kind: 'Deployment', name: 'web' }, message: 'second' },
          { type: 'Normal', reason: 'Sooner', lastTimestamp: ago(30), count: 4, firstTimestamp: ago(300), source: { component: 'c' }, involvedObject: { kind: 'ResourceBinding', name: 'web-deployment' }, message: 'first' },
        ],
      },
      now,
    );
    expect(text).toBe(
      [
        'Name:          web',
        'Namespace:     shop',
        'Kind:          Deployment (apps/v1)',
        'Labels:        app=web',
        'Policy:        PropagationPolicy shop/pp',
        'Binding:       ResourceBinding shop/web-deployment',
        'Replicas:      3',
        'Clusters:',
        '  CLUSTER   REPLICAS   APPLIED   HEALTH    WORK',
        '  m1        3          True      Healthy   karmada-es-m1/web-abc',
        'Conditions:',
        '  TYPE        STATUS   REASON    AGE   MESSAGE',
        '  Scheduled   True     Success   90s   ok',
        'Works:',
        '  NAMESPACE       NAME      APPLIED   AGE',
        '  karmada-es-m1   web-abc   True      10m',
        'Events:',
        '  TYPE     REASON   AGE                FROM   OBJECT                           MESSAGE',
        '  Normal   Sooner   30s (x4 over 5m)   c      ResourceBinding/web-deployment   first',
        '  Normal   Later    10s                c      Deployment/web                   second',
        '',
      ].join('\n'),
    );
  });

  it('humanDuration is apimachinery\'s', () => {
    expect([119, 125, 600, 3 * 3600 + 60, 30 * 3600, 3 * 86400 + 3600, 400 * 86400, 3 * 365 * 86400].map((s) => humanDuration(s * 1000))).toEqual(['119s', '2m5s', '10m', '3h1m', '30h', '3d1h', '400d', '3y']);
  });
});
