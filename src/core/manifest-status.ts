/**
 * A Work's manifestStatuses: each member object's reflected status and health, as the work-status
 * controller records them. The execution controller computes the same list from the objects its own
 * writes returned when it marks a Work Applied for the first time, so the first report costs one Work
 * status write instead of two (README "Where karmada-lite differs" 53).
 */
import { EventReasonInterpretHealthFailed, EventReasonInterpretHealthSucceed, EventReasonReflectStatusFailed, EventReasonReflectStatusSucceed, WorkStatusControllerName, type Health } from '../api/constants.js';
import { findBuiltinKind } from '../api/kubernetes-kinds.js';
import type { Work } from '../api/generated/types.js';
import { errorMessage } from '../json/error.js';
import { deepEqual } from '../json/value.js';
import { groupOf, nsName, refOf, versionOf, type KObject } from './object.js';
import type { CoreEvent, ReconcileContext } from './ports.js';

export type ManifestStatus = NonNullable<NonNullable<Work['status']>['manifestStatuses']>[number];

function pluralOf(apiVersion: string, kind: string): string {
  return findBuiltinKind(apiVersion, kind)?.plural ?? `${kind.toLowerCase()}s`;
}

/** Health of a member object: Healthy when the kind has no health hook, Unknown when it fails. */
export function interpretHealth(ctx: ReconcileContext, obj: KObject): { health: Health; error?: string; message?: string } {
  if (!ctx.interpreter.hookEnabled(obj, 'InterpretHealth')) return { health: 'Healthy' };
  try {
    // A health check (`--health-checks`) also says why; extension field healthMessage, README "Health checks".
    const detail = ctx.interpreter.healthDetail?.(obj);
    if (detail) return detail;
    return { health: ctx.interpreter.interpretHealth(obj) ? 'Healthy' : 'Unhealthy' };
  } catch (e) {
    return { health: 'Unknown', error: errorMessage(e) };
  }
}

export interface ReflectedManifests {
  statuses: ManifestStatus[];
  events: CoreEvent[];
  /** A reflect hook failed: statuses are what the Work had, the event says which object. */
  error?: string;
}

/**
 * The Work's manifestStatuses given the member objects (`observed(i)`: manifest i as the member has it,
 * undefined when it is gone, which leaves the last status in place). Events as the work-status
 * controller reports them: a reflect or health failure, and a success for each item that changed.
 */
export function reflectManifests(ctx: ReconcileContext, w: Work, manifests: readonly KObject[], observed: (i: number) => KObject | undefined): ReflectedManifests {
  const events: CoreEvent[] = [];
  const wref = refOf(w);
  let statuses: ManifestStatus[] = w.status?.manifestStatuses ?? [];
  for (let i = 0; i < manifests.length; i++) {
    const m = manifests[i]!;
    const obj = observed(i);
    if (!obj) continue;
    const what = `object(${m.kind}/${nsName(m.metadata?.namespace, m.metadata?.name ?? '')})`;
    let reflected: Record<string, unknown> | undefined;
    try {
      reflected = ctx.interpreter.reflectStatus(obj);
    } catch (e) {
      events.push({ involvedObject: wref, type: 'Warning', reason: EventReasonReflectStatusFailed, message: `Reflect status for ${what} failed: ${errorMessage(e)}`, source: WorkStatusControllerName });
      return { statuses: w.status?.manifestStatuses ?? [], events, error: errorMessage(e) };
    }
    const h = interpretHealth(ctx, obj);
    if (h.error) events.push({ involvedObject: wref, type: 'Warning', reason: EventReasonInterpretHealthFailed, message: `Interpret health of ${what} failed: ${h.error}`, source: WorkStatusControllerName });
    const identifier: ManifestStatus['identifier'] = {
      ordinal: i,
      group: groupOf(m.apiVersion),
      version: versionOf(m.apiVersion),
      kind: m.kind,
      resource: pluralOf(m.apiVersion, m.kind),
      name: m.metadata?.name ?? '',
    };
    if (m.metadata?.namespace) identifier.namespace = m.metadata.namespace;
    const item: ManifestStatus = { identifier, health: h.health };
    if (h.message) item.healthMessage = h.message;
    if (reflected !== undefined && reflected !== null) item.status = reflected;
    // Karmada replaces the whole list with the item of the object that changed.
    const next = [item];
    if (!deepEqual(next, statuses)) {
      statuses = next;
      events.push({ involvedObject: wref, type: 'Normal', reason: EventReasonReflectStatusSucceed, message: `Reflect status for ${what} succeed.`, source: WorkStatusControllerName });
      if (!h.error && ctx.interpreter.hookEnabled(obj, 'InterpretHealth')) {
        events.push({ involvedObject: wref, type: 'Normal', reason: EventReasonInterpretHealthSucceed, message: `Interpret health of ${what} as ${h.health}.${h.message ? ` ${h.message}` : ''}`, source: WorkStatusControllerName });
      }
    }
  }
  return { statuses, events };
}
