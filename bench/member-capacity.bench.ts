/**
 * Memory of the members' Pod informers (issue 36): `node --expose-gc --import tsx bench/member-capacity.bench.ts`.
 * 10,000 Pods shaped as a kube-apiserver returns them (metadata with managedFields, a Deployment's owner,
 * two containers with env, probes and mounts, status with conditions and container statuses), parsed from
 * JSON as the informer receives them, then held two ways in the same run: as the lean copies the member
 * informers keep (src/kube/member-capacity.ts LeanCache over leanPod), and whole. Reports the heap each holds
 * per 1,000 Pods after full collections, and the ratio.
 */
import { leanPod } from '../src/core/cluster-resource-summary.js';
import type { KObject } from '../src/core/object.js';
import { LeanCache } from '../src/kube/member-capacity.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc --import tsx bench/member-capacity.bench.ts');
const PODS = 10_000;

function podJson(i: number): string {
  const app = `app-${i % 50}`;
  const node = `node-${i % 100}`;
  const container = (name: string) => ({
    name,
    image: `registry.example.com/team/${app}:1.${i % 9}.0`,
    ports: [{ containerPort: 8080, protocol: 'TCP' }],
    env: [
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
    ],
    resources: { requests: { cpu: `${100 + (i % 5) * 50}m`, memory: `${128 * (1 + (i % 4))}Mi` }, limits: { cpu: '1', memory: '1Gi' } },
    readinessProbe: { httpGet: { path: '/ready', port: 8080, scheme: 'HTTP' }, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
    volumeMounts: [{ name: 'kube-api-access', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'IfNotPresent',
  });
  const t = '2026-12-07T10:00:00Z';
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `${app}-7d4b9c-${i.toString(36)}`,
      generateName: `${app}-7d4b9c-`,
      namespace: `ns-${i % 20}`,
      uid: `6f1c0c4e-0000-4000-8000-${String(i).padStart(12, '0')}`,
      resourceVersion: String(100_000 + i),
      creationTimestamp: t,
      labels: { app, 'pod-template-hash': '7d4b9c' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-7d4b9c`, uid: 'rs-uid', controller: true, blockOwnerDeletion: true }],
      managedFields: [{ manager: 'kube-controller-manager', operation: 'Update', apiVersion: 'v1', time: t, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:generateName': {}, 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:containers': {} } } }],
    },
    spec: {
      containers: [container('main'), container('sidecar')],
      nodeName: node,
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
      securityContext: {},
      schedulerName: 'default-scheduler',
      tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      volumes: [{ name: 'kube-api-access', projected: { sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: 'token' } }], defaultMode: 420 } }],
      priority: 0,
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    status: {
      phase: 'Running',
      conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastProbeTime: null, lastTransitionTime: t })),
      hostIP: '10.0.0.1',
      podIP: `10.244.${(i >> 8) & 255}.${i & 255}`,
      startTime: t,
      containerStatuses: ['main', 'sidecar'].map((name) => ({ name, state: { running: { startedAt: t } }, ready: true, restartCount: 0, image: 'registry.example.com/x:1', imageID: 'registry.example.com/x@sha256:0', containerID: 'containerd://0', started: true })),
      qosClass: 'Burstable',
    },
  });
}

const texts = Array.from({ length: PODS }, (_, i) => podJson(i));

function heapHolding(fill: () => unknown): number {
  gc!();
  gc!();
  const before = process.memoryUsage().heapUsed;
  const held = fill();
  gc!();
  gc!();
  const after = process.memoryUsage().heapUsed;
  // keep `held` alive until after the measurement
  if (!held) throw new Error('nothing held');
  return after - before;
}

const rounds = 3;
const lean: number[] = [];
const whole: number[] = [];
for (let r = 0; r < rounds; r++) {
  lean.push(
    heapHolding(() => {
      const cache = new LeanCache(leanPod);
      for (let i = 0; i < PODS; i++) cache.set(String(i), JSON.parse(texts[i]!) as KObject);
      return cache;
    }),
  );
  whole.push(
    heapHolding(() => {
      const map = new Map<string, unknown>();
      for (let i = 0; i < PODS; i++) map.set(String(i), JSON.parse(texts[i]!));
      return map;
    }),
  );
}
const median = (xs: number[]) => xs.slice().sort((a, b) => a - b)[xs.length >> 1]!;
const perThousand = (bytes: number) => Number(((bytes / PODS) * 1000 / 2 ** 20).toFixed(2));
console.log(
  JSON.stringify({ pods: PODS, rounds, leanMiBPer1000Pods: perThousand(median(lean)), wholeMiBPer1000Pods: perThousand(median(whole)), ratio: Number((median(lean) / median(whole)).toFixed(3)), date: new Date().toISOString(), load: (await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ') }),
);
