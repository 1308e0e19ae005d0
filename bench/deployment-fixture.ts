/** A Deployment as a real API server returns it (managedFields included), and three member statuses. */
export function realisticDeployment(): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      annotations: {
        'deployment.kubernetes.io/revision': '3',
        'kubectl.kubernetes.io/last-applied-configuration':
          '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},"labels":{"app":"nginx"},"name":"nginx","namespace":"default"},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"nginx"}},"template":{"metadata":{"labels":{"app":"nginx"}},"spec":{"containers":[{"image":"nginx:1.25","name":"nginx","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"250m","memory":"128Mi"}}}]}}}}\n',
        'resourcetemplate.karmada.io/generation': '3',
      },
      creationTimestamp: '2024-05-01T10:00:00Z',
      generation: 3,
      labels: { app: 'nginx', 'propagationpolicy.karmada.io/name': 'nginx-propagation', 'propagationpolicy.karmada.io/namespace': 'default' },
      managedFields: [
        {
          apiVersion: 'apps/v1',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} }, 'f:labels': { '.': {}, 'f:app': {} } },
            'f:spec': {
              'f:progressDeadlineSeconds': {},
              'f:replicas': {},
              'f:revisionHistoryLimit': {},
              'f:selector': {},
              'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
              'f:template': {
                'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
                'f:spec': {
                  'f:containers': {
                    'k:{"name":"nginx"}': {
                      '.': {},
                      'f:image': {},
                      'f:imagePullPolicy': {},
                      'f:name': {},
                      'f:ports': { '.': {}, 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
                      'f:resources': { '.': {}, 'f:limits': { '.': {}, 'f:cpu': {}, 'f:memory': {} }, 'f:requests': { '.': {}, 'f:cpu': {}, 'f:memory': {} } },
                      'f:terminationMessagePath': {},
                      'f:terminationMessagePolicy': {},
                    },
                  },
                  'f:dnsPolicy': {},
                  'f:restartPolicy': {},
                  'f:schedulerName': {},
                  'f:securityContext': {},
                  'f:terminationGracePeriodSeconds': {},
                },
              },
            },
          },
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          time: '2024-05-01T10:00:00Z',
        },
        {
          apiVersion: 'apps/v1',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:annotations': { 'f:deployment.kubernetes.io/revision': {} } },
            'f:status': {
              'f:availableReplicas': {},
              'f:conditions': {
                '.': {},
                'k:{"type":"Available"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:lastUpdateTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} },
                'k:{"type":"Progressing"}': { '.': {}, 'f:lastTransitionTime': {}, 'f:lastUpdateTime': {}, 'f:message': {}, 'f:reason': {}, 'f:status': {}, 'f:type': {} },
              },
              'f:observedGeneration': {},
              'f:readyReplicas': {},
              'f:replicas': {},
              'f:updatedReplicas': {},
            },
          },
          manager: 'kube-controller-manager',
          operation: 'Update',
          subresource: 'status',
          time: '2024-05-01T10:05:00Z',
        },
      ],
      name: 'nginx',
      namespace: 'default',
      resourceVersion: '123456',
      uid: '5b1f8f3e-2a7c-4e0b-9a57-3c9f1d2e4b6a',
    },
    spec: {
      progressDeadlineSeconds: 600,
      replicas: 3,
      revisionHistoryLimit: 10,
      selector: { matchLabels: { app: 'nginx' } },
      strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' }, type: 'RollingUpdate' },
      template: {
        metadata: { creationTimestamp: null, labels: { app: 'nginx' } },
        spec: {
          containers: [
            {
              image: 'nginx:1.25',
              imagePullPolicy: 'IfNotPresent',
              name: 'nginx',
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '250m', memory: '128Mi' } },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              envFrom: [{ configMapRef: { name: 'nginx-config' } }],
              volumeMounts: [{ mountPath: '/etc/tls', name: 'tls' }],
            },
          ],
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          schedulerName: 'default-scheduler',
          securityContext: {},
          serviceAccountName: 'nginx',
          terminationGracePeriodSeconds: 30,
          volumes: [{ name: 'tls', secret: { secretName: 'nginx-tls', defaultMode: 420 } }],
        },
      },
    },
    status: {
      availableReplicas: 3,
      conditions: [
        {
          lastTransitionTime: '2024-05-01T10:01:00Z',
          lastUpdateTime: '2024-05-01T10:01:00Z',
          message: 'Deployment has minimum availability.',
          reason: 'MinimumReplicasAvailable',
          status: 'True',
          type: 'Available',
        },
        {
          lastTransitionTime: '2024-05-01T10:00:00Z',
          lastUpdateTime: '2024-05-01T10:05:00Z',
          message: 'ReplicaSet "nginx-7c79c4bf97" has successfully progressed.',
          reason: 'NewReplicaSetAvailable',
          status: 'True',
          type: 'Progressing',
        },
      ],
      observedGeneration: 3,
      readyReplicas: 3,
      replicas: 3,
      updatedReplicas: 3,
    },
  };
}

export function memberStatusItems(): Record<string, unknown>[] {
  return ['member1', 'member2', 'member3'].map((clusterName, i) => ({
    clusterName,
    applied: true,
    health: 'Healthy',
    status: {
      generation: 3,
      resourceTemplateGeneration: 3,
      observedGeneration: 3,
      replicas: i + 1,
      updatedReplicas: i + 1,
      readyReplicas: i + 1,
      availableReplicas: i + 1,
    },
  }));
}

/** InterpretHealth of a Deployment written the way Karmada's own Lua customizations are (the benches' "lean" script). */
export const LEAN_HEALTH_SCRIPT = `
function InterpretHealth(observedObj)
  local status = observedObj.status
  if status == nil or status.observedGeneration ~= observedObj.metadata.generation then
    return false
  end
  local updated = status.updatedReplicas or 0
  if observedObj.spec.replicas ~= nil and updated < observedObj.spec.replicas then
    return false
  end
  return (status.availableReplicas or 0) >= updated
end`;
