/**
 * Pod-template analysis shared by the `kube` Lua library and the native interpreters: replica
 * requirements (what one replica asks of a node) and the ConfigMaps/Secrets/ServiceAccounts/PVCs a pod
 * depends on. Pure functions over decoded JSON.
 */
import { setOwn } from '../json/value.js';
import { parseQuantity, Quantity } from '../quantity/quantity.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const obj = (v: unknown): Obj => (isObj(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Raised when a value cannot be read as a PodTemplateSpec (wrong JSON type, bad quantity). */
export class PodSpecError extends Error {}

const QUALIFIED_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function isQualifiedName(v: string): boolean {
  const parts = v.split('/');
  let name = v;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)) return false;
  } else if (parts.length > 2) return false;
  return name.length > 0 && name.length <= 63 && QUALIFIED_NAME.test(name);
}

const isPrefixedNative = (n: string) => n.includes('kubernetes.io/');
const isHugePage = (n: string) => n.startsWith('hugepages-');

/** Kubernetes' IsScalarResourceName: extended, hugepages, prefixed native, attachable volumes. */
export function isScalarResourceName(n: string): boolean {
  const native = !n.includes('/') || isPrefixedNative(n);
  const extended = !native && !n.startsWith('requests.') && isQualifiedName(`requests.${n}`);
  return extended || isHugePage(n) || isPrefixedNative(n) || n.startsWith('attachable-volumes-');
}

function quantity(v: unknown, where: string): Quantity {
  if (typeof v !== 'string' && typeof v !== 'number') throw new PodSpecError(`${where}: quantities must be strings or numbers`);
  try {
    return parseQuantity(v);
  } catch (e) {
    throw new PodSpecError((e as Error).message);
  }
}

/** Running totals in Kubernetes' scheduler units (millicores for cpu, whole units for the rest). */
class ResourceTotals {
  readonly values = new Map<string, bigint>();

  private amount(name: string, q: Quantity): bigint | null {
    if (name === 'cpu') return q.milliValueBig();
    if (name === 'memory' || name === 'ephemeral-storage' || name === 'pods') return q.valueBig();
    if (isScalarResourceName(name)) return q.valueBig();
    return null;
  }

  add(list: Obj): void {
    for (const [name, raw] of Object.entries(list)) {
      const a = this.amount(name, quantity(raw, name));
      if (a === null) continue;
      this.values.set(name, (this.values.get(name) ?? 0n) + a);
    }
  }

  max(list: Obj): void {
    for (const [name, raw] of Object.entries(list)) {
      const a = this.amount(name, quantity(raw, name));
      if (a === null) continue;
      const cur = this.values.get(name) ?? 0n;
      if (a > cur) this.values.set(name, a);
    }
  }

  toResourceList(): Record<string, string> | null {
    const out: Record<string, string> = {};
    const order = ['cpu', 'memory', 'ephemeral-storage', 'pods'];
    const names = [...order.filter((n) => this.values.has(n)), ...[...this.values.keys()].filter((n) => !order.includes(n)).sort()];
    for (const name of names) {
      const v = this.values.get(name)!;
      if (v <= 0n) continue;
      let q: Quantity;
      if (name === 'cpu') q = Quantity.fromMilli(v, 'DecimalSI');
      else if (name === 'memory' || name === 'ephemeral-storage' || isHugePage(name)) q = Quantity.fromInt(v, 'BinarySI');
      else q = Quantity.fromInt(v, 'DecimalSI');
      setOwn(out, name, q.toString());
    }
    return Object.keys(out).length ? out : null;
  }
}

/** Requests with every limit that has no matching request copied in, as the scheduler sees them. */
function effectiveRequests(container: unknown): Obj {
  const res = obj(obj(container).resources);
  const requests = { ...obj(res.requests) };
  if (isObj(res.limits)) {
    for (const [k, v] of Object.entries(res.limits)) if (!Object.hasOwn(requests, k)) setOwn(requests, k, v);
  }
  return requests;
}

/** The resources one replica requests: sum(containers) vs max(init containers), plus overhead. */
export function podResourceRequest(podSpec: unknown): Record<string, string> | null {
  const spec = obj(podSpec);
  const totals = new ResourceTotals();
  for (const c of arr(spec.containers)) totals.add(effectiveRequests(c));
  for (const c of arr(spec.initContainers)) totals.max(effectiveRequests(c));
  if (isObj(spec.overhead)) totals.add(spec.overhead);
  return totals.toResourceList();
}

export interface NodeClaim {
  hardNodeAffinity?: unknown;
  nodeSelector?: Record<string, string>;
  tolerations?: unknown[];
}

export interface ReplicaRequirements {
  nodeClaim?: NodeClaim;
  resourceRequest?: Record<string, string>;
  namespace?: string;
  priorityClassName?: string;
}

export function podNodeClaim(podSpec: unknown): NodeClaim | null {
  const spec = obj(podSpec);
  const hard = obj(obj(spec.affinity).nodeAffinity).requiredDuringSchedulingIgnoredDuringExecution;
  const tolerations = arr(spec.tolerations);
  const hasSelector = spec.nodeSelector !== undefined && spec.nodeSelector !== null;
  const hasHard = hard !== undefined && hard !== null;
  if (!hasSelector && !hasHard && tolerations.length === 0) return null;
  const claim: NodeClaim = {};
  if (hasHard) claim.hardNodeAffinity = hard;
  if (hasSelector) claim.nodeSelector = spec.nodeSelector as Record<string, string>;
  if (tolerations.length > 0) claim.tolerations = tolerations;
  return claim;
}

/** Replica requirements of a pod template's spec; null when neither a node claim nor requests exist. */
export function replicaRequirements(podSpec: unknown): ReplicaRequirements | null {
  const nodeClaim = podNodeClaim(podSpec);
  const resourceRequest = podResourceRequest(podSpec);
  if (!nodeClaim && !resourceRequest) return null;
  const out: ReplicaRequirements = {};
  if (nodeClaim) out.nodeClaim = nodeClaim;
  if (resourceRequest) out.resourceRequest = resourceRequest;
  return out;
}

/** Rejects values encoding/json would refuse when decoding a PodTemplateSpec. */
export function checkPodTemplate(tpl: unknown): void {
  if (!isObj(tpl)) throw new PodSpecError('json: cannot unmarshal array into Go value of type v1.PodTemplateSpec');
  const spec = tpl.spec;
  if (spec === undefined || spec === null) return;
  if (!isObj(spec)) throw new PodSpecError(`json: cannot unmarshal ${jsonKind(spec)} into Go struct field PodTemplateSpec.spec of type v1.PodSpec`);
  for (const field of ['containers', 'initContainers', 'ephemeralContainers', 'volumes', 'tolerations', 'imagePullSecrets']) {
    const v = spec[field];
    if (v !== undefined && v !== null && !Array.isArray(v)) {
      throw new PodSpecError(`json: cannot unmarshal ${jsonKind(v)} into Go struct field PodSpec.spec.${field} of type []v1.${field}`);
    }
  }
  for (const field of ['containers', 'initContainers']) {
    for (const c of arr(spec[field])) {
      const res = obj(obj(c).resources);
      for (const part of ['requests', 'limits']) {
        const list = res[part];
        if (list === undefined || list === null) continue;
        if (!isObj(list)) throw new PodSpecError(`json: cannot unmarshal ${jsonKind(list)} into Go struct field ResourceRequirements.spec.${field}.resources.${part} of type v1.ResourceList`);
        for (const [name, q] of Object.entries(list)) quantity(q, name);
      }
    }
  }
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return 'object';
}

export interface DependencyRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
  labelSelector?: unknown;
}

const SECRET_VOLUME_SOURCES: [string, (v: Obj) => string][] = [
  ['azureFile', (v) => str(v.secretName)],
  ['cephfs', (v) => str(obj(v.secretRef).name)],
  ['cinder', (v) => str(obj(v.secretRef).name)],
  ['flexVolume', (v) => str(obj(v.secretRef).name)],
  ['projected', (v) => arr(v.sources).map((s) => str(obj(obj(s).secret).name)).find((n) => n) ?? ''],
  ['rbd', (v) => str(obj(v.secretRef).name)],
  ['secret', (v) => str(v.secretName)],
  ['scaleIO', (v) => str(obj(v.secretRef).name)],
  ['iscsi', (v) => str(obj(v.secretRef).name)],
  ['storageos', (v) => str(obj(v.secretRef).name)],
  ['csi', (v) => str(obj(v.nodePublishSecretRef).name)],
];

/**
 * ConfigMaps, Secrets, ServiceAccount and PVCs referenced by a pod spec, grouped in that order, names
 * de-duplicated and sorted within a group (Go's set order is random; sorted is a valid instance of it).
 */
export function podDependencies(podSpec: unknown, namespace: string): DependencyRef[] {
  const spec = obj(podSpec);
  const containers = [...arr(spec.initContainers), ...arr(spec.containers), ...arr(spec.ephemeralContainers)].map(obj);
  const configMaps = new Set<string>();
  const secrets = new Set<string>();
  for (const c of containers) {
    for (const ef of arr(c.envFrom)) {
      const n = str(obj(obj(ef).configMapRef).name);
      if (n) configMaps.add(n);
    }
    for (const e of arr(c.env)) {
      const n = str(obj(obj(obj(e).valueFrom).configMapKeyRef).name);
      if (n) configMaps.add(n);
    }
  }
  for (const vol of arr(spec.volumes).map(obj)) {
    if (isObj(vol.projected)) {
      for (const s of arr(vol.projected.sources)) {
        const n = str(obj(obj(s).configMap).name);
        if (n) configMaps.add(n);
      }
    } else if (isObj(vol.configMap)) {
      const n = str(vol.configMap.name);
      if (n) configMaps.add(n);
    }
  }
  for (const s of arr(spec.imagePullSecrets)) {
    const n = str(obj(s).name);
    if (n) secrets.add(n);
  }
  for (const c of containers) {
    for (const ef of arr(c.envFrom)) {
      const n = str(obj(obj(ef).secretRef).name);
      if (n) secrets.add(n);
    }
    for (const e of arr(c.env)) {
      const n = str(obj(obj(obj(e).valueFrom).secretKeyRef).name);
      if (n) secrets.add(n);
    }
  }
  for (const vol of arr(spec.volumes).map(obj)) {
    for (const [field, get] of SECRET_VOLUME_SOURCES) {
      if (!isObj(vol[field])) continue;
      if (field === 'projected') {
        for (const s of arr((vol[field] as Obj).sources)) {
          const n = str(obj(obj(s).secret).name);
          if (n) secrets.add(n);
        }
      } else {
        const n = get(vol[field] as Obj);
        if (n) secrets.add(n);
      }
      break;
    }
  }
  const pvcs = new Set<string>();
  for (const vol of arr(spec.volumes).map(obj)) {
    const n = str(obj(vol.persistentVolumeClaim).claimName);
    if (n) pvcs.add(n);
  }
  const sa = str(spec.serviceAccountName);
  const out: DependencyRef[] = [];
  const add = (kind: string, names: Iterable<string>) => {
    for (const name of [...names].sort()) out.push({ apiVersion: 'v1', kind, namespace, name });
  };
  add('ConfigMap', configMaps);
  add('Secret', secrets);
  if (sa && sa !== 'default') add('ServiceAccount', [sa]);
  add('PersistentVolumeClaim', pvcs);
  return out;
}
