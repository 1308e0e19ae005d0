/**
 * A write that would store the object it replaces once more: the apiserver answers it with the same
 * resourceVersion, but it still costs a request (and a token of the client's rate limiter). A store that
 * sends writes over the network drops it, as the embedded store does, by comparing with the object as
 * cached, the way Karmada's helpers compare a mutated copy with the informer's object before an update.
 */
import { deepEqual } from '../json/value.js';
import type { KObject } from '../core/object.js';

/** Metadata the server sets: a write that leaves them out keeps them as they are. */
const SERVER_OWNED = new Set(['uid', 'creationTimestamp', 'generation', 'selfLink', 'managedFields', 'deletionTimestamp', 'deletionGracePeriodSeconds']);

/**
 * Whether `write` (an update, or a status update) would leave `cached` as it is. `statusSubresource`: the
 * kind has `/status`, so an update ignores status and a status update ignores everything else. A write
 * with another resourceVersion than the cached one is never unchanged: the server decides (409).
 */
export function unchangedByWrite(op: 'update' | 'updateStatus', write: KObject, cached: KObject | undefined, statusSubresource: boolean): boolean {
  if (!cached) return false;
  const rv = write.metadata?.resourceVersion;
  if (rv !== undefined && rv !== cached.metadata.resourceVersion) return false;
  if (op === 'updateStatus' && statusSubresource) return deepEqual(write.status, cached.status);
  for (const k of new Set([...Object.keys(write), ...Object.keys(cached)])) {
    if (k === 'metadata' || (k === 'status' && statusSubresource)) continue;
    if (!deepEqual(write[k], cached[k])) return false;
  }
  const wm = write.metadata as Record<string, unknown>;
  const cm = cached.metadata as Record<string, unknown>;
  for (const k of new Set([...Object.keys(wm), ...Object.keys(cm)])) {
    if (k === 'resourceVersion' || (SERVER_OWNED.has(k) && !(k in wm))) continue;
    if (!deepEqual(wm[k], cm[k])) return false;
  }
  return true;
}
