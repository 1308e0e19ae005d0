// renderDescription: the one view of a template, its binding, Works and events (pure: objects and a clock).
import { describe, expect, it } from 'vitest';
import { renderDescription } from '../../src/cli/fleet/describe.js';
import { renderKarmadaDescription } from '../../src/cli/fleet/describe-karmada.js';
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

describe('renderKarmadaDescription: Karmada\'s own objects as themselves', () => {
  const kind = (group: string, version: string, resource: string, k: string, namespaced: boolean) => ({ group, version, resource, kind: k, namespaced, verbs: [] });

  it('a Cluster: sync mode, endpoint, taints, conditions, nodes, resource summary and API enablements', () => {
    const text = renderKarmadaDescription(
      {
        resource: kind('cluster.karmada.io', 'v1alpha1', 'clusters', 'Cluster', false),
        object: {
          metadata: { name: 'member1', labels: { region: 'eu' } },
          spec: { syncMode: 'Push', apiEndpoint: 'https://10.0.0.1:6443', region: 'eu-west', taints: [{ key: 'cluster.karmada.io/not-ready', effect: 'NoSchedule' }] },
          status: {
            kubernetesVersion: 'v1.31.0',
            conditions: [{ type: 'Ready', status: 'False', reason: 'ClusterNotReachable', message: 'cluster is not reachable', lastTransitionTime: ago(120) }],
            nodeSummary: { totalNum: 3, readyNum: 2 },
            resourceSummary: { allocatable: { cpu: '8', memory: '32Gi' }, allocated: { cpu: '2' } },
            apiEnablements: [{ groupVersion: 'apps/v1', resources: [{ name: 'deployments', kind: 'Deployment' }, { name: 'statefulsets', kind: 'StatefulSet' }] }],
          },
        },
        related: [],
        events: [],
      },
      now,
    );
    expect(text).toBe(
      [
        'Name:          member1',
        'Kind:          Cluster (cluster.karmada.io/v1alpha1)',
        'Labels:        region=eu',
        'Sync Mode:     Push',
        'API Endpoint:  https://10.0.0.1:6443',
        'Location:      eu-west',
        'Kubernetes:    v1.31.0',
        'Taints:',
        '  KEY                            VALUE   EFFECT       ADDED',
        '  cluster.karmada.io/not-ready           NoSchedule   -',
        'Conditions:',
        '  TYPE    STATUS   REASON                AGE   MESSAGE',
        '  Ready   False    ClusterNotReachable   2m    cluster is not reachable',
        'Nodes:         2 ready of 3',
        'Resource Summary:',
        '  RESOURCE   ALLOCATABLE   ALLOCATED   ALLOCATING',
        '  cpu        8             2           -',
        '  memory     32Gi          -           -',
        'API Enablements:',
        '  apps/v1: Deployment, StatefulSet',
        'Events:  <none>',
        '',
      ].join('\n'),
    );
  });

  it('a ResourceBinding: the resource it binds and its placement; a PropagationPolicy: selectors, placement, claimed bindings', () => {
    const rb = renderKarmadaDescription(
      {
        resource: kind('work.karmada.io', 'v1alpha2', 'resourcebindings', 'ResourceBinding', true),
        object: { metadata: { name: 'web-deployment', namespace: 'shop' }, spec: { resource: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' }, replicas: 2, clusters: [{ name: 'm1', replicas: 2 }] } },
        related: [],
        events: [],
      },
      now,
    );
    expect(rb).toContain('Resource:      Deployment shop/web (apps/v1)\nReplicas:      2\nClusters:\n  CLUSTER   REPLICAS   APPLIED     HEALTH      WORK\n  m1        2          <unknown>   <unknown>   <none>\n');
    expect(rb).not.toContain('Policy:');
    const pp = renderKarmadaDescription(
      {
        resource: kind('policy.karmada.io', 'v1alpha1', 'propagationpolicies', 'PropagationPolicy', true),
        object: { metadata: { name: 'web-pp', namespace: 'shop' }, spec: { resourceSelectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }], placement: { clusterAffinity: { clusterNames: ['m1', 'm2'] } } } },
        related: [{ kind: 'ResourceBinding', metadata: { name: 'web-deployment', namespace: 'shop' }, spec: { resource: { kind: 'Deployment', name: 'web' } } }],
        events: [],
      },
      now,
    );
    expect(pp).toContain(
      [
        'Resource Selectors:',
        '  API VERSION   KIND         NAMESPACE   NAME   LABEL SELECTOR',
        '  apps/v1       Deployment   *           web    <none>',
        'Placement:',
        '  Cluster Affinity:',
        '    Cluster Names:',
        '      m1',
        '      m2',
        'Claimed Bindings:',
        '  KIND              NAMESPACE   NAME             RESOURCE',
        '  ResourceBinding   shop        web-deployment   Deployment/web',
      ].join('\n'),
    );
  });
});
