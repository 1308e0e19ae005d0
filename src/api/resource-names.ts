/**
 * Kubernetes' resource names as quota and scheduling classify them (k8s.io/api core/v1 helpers, as Karmada
 * lifts them in pkg/util/lifted): which names a ResourceQuota takes, which count in whole units, which are
 * scalar (extended, huge pages, `*kubernetes.io/`-prefixed, attachable volumes).
 */

/** `standardQuotaResources`: what a ResourceQuota may name without a `/`. */
const STANDARD_QUOTA = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'persistentvolumeclaims',
  'configmaps',
  'services.nodeports',
  'services.loadbalancers',
]);

/** `standardResources`: the quota's list with `storage` and without nothing else. */
const STANDARD = new Set([...STANDARD_QUOTA, 'storage']);

/** `integerResources`: counted in whole units. */
const INTEGER = new Set(['pods', 'resourcequotas', 'services', 'replicationcontrollers', 'secrets', 'configmaps', 'persistentvolumeclaims', 'services.nodeports', 'services.loadbalancers']);

const HUGE_PAGES_PREFIX = 'hugepages-';
const REQUESTS_HUGE_PAGES_PREFIX = 'requests.hugepages-';
const NAME_PART = /^([A-Za-z0-9]([-A-Za-z0-9_.]*)?[A-Za-z0-9])$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** apimachinery's IsQualifiedName, as a yes or no (src/validation/labels.ts has its messages). */
export function isQualifiedName(value: string): boolean {
  const parts = value.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1]!;
  if (name.length === 0 || name.length > 63 || !NAME_PART.test(name)) return false;
  if (parts.length === 2) return parts[0]!.length > 0 && parts[0]!.length <= 253 && DNS_SUBDOMAIN.test(parts[0]!);
  return true;
}

export const isHugePageResourceName = (name: string): boolean => name.startsWith(HUGE_PAGES_PREFIX);
const isQuotaHugePage = (name: string) => name.startsWith(HUGE_PAGES_PREFIX) || name.startsWith(REQUESTS_HUGE_PAGES_PREFIX);
const isPrefixedNative = (name: string) => name.includes('kubernetes.io/');
const isNative = (name: string) => !name.includes('/') || isPrefixedNative(name);

export const isStandardQuotaResourceName = (name: string): boolean => STANDARD_QUOTA.has(name) || isQuotaHugePage(name);
export const isStandardResourceName = (name: string): boolean => STANDARD.has(name) || isQuotaHugePage(name);

/** Not native, not `requests.`-prefixed, and a qualified name once `requests.` is put in front. */
export function isExtendedResourceName(name: string): boolean {
  if (isNative(name) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`);
}

export const isIntegerResourceName = (name: string): boolean => INTEGER.has(name) || isExtendedResourceName(name);

/** IsScalarResourceName: what Karmada's util.Resource keeps besides cpu, memory, pods and ephemeral-storage. */
export function isScalarResourceName(name: string): boolean {
  return isExtendedResourceName(name) || isHugePageResourceName(name) || isPrefixedNative(name) || name.startsWith('attachable-volumes-');
}
