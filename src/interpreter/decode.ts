/**
 * Typed decoding of script results, as Go's encoding/json into Karmada's structs would do it: unknown
 * fields are dropped, wrong JSON types and non-integral replica counts fail, quantities must parse.
 */
import { setOwn } from '../json/value.js';
import { tryParseQuantity } from '../quantity/quantity.js';
import type { JsonValue } from '../lua/convert.js';
import type { Component, NodeClaim, ReplicaRequirements } from './types.js';

export class DecodeError extends Error {}

type Obj = { [k: string]: JsonValue };

function kindOf(v: JsonValue): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

function expectObject(v: JsonValue, field: string, goType: string): Obj | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw new DecodeError(`json: cannot unmarshal ${kindOf(v)} into Go struct field ${field} of type ${goType}`);
  }
  return v;
}

function expectString(v: JsonValue | undefined, field: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new DecodeError(`json: cannot unmarshal ${kindOf(v)} into Go struct field ${field} of type string`);
  return v;
}

function decodeResourceList(v: JsonValue | undefined, field: string): Record<string, string | number> | undefined {
  const o = expectObject(v ?? null, field, 'v1.ResourceList');
  if (!o) return undefined;
  const out: Record<string, string | number> = {};
  for (const [k, q] of Object.entries(o)) {
    if (typeof q !== 'string' && typeof q !== 'number') {
      throw new DecodeError(`json: cannot unmarshal ${kindOf(q)} into Go struct field ${field} of type resource.Quantity`);
    }
    const parsed = tryParseQuantity(String(q));
    if (typeof parsed === 'string') throw new DecodeError(parsed);
    setOwn(out, k, q);
  }
  return out;
}

function decodeNodeClaim(v: JsonValue | undefined, field: string): NodeClaim | undefined {
  const o = expectObject(v ?? null, field, 'v1alpha2.NodeClaim');
  if (!o) return undefined;
  const claim: NodeClaim = {};
  if (o.hardNodeAffinity !== undefined && o.hardNodeAffinity !== null) {
    claim.hardNodeAffinity = expectObject(o.hardNodeAffinity, `${field}.hardNodeAffinity`, 'v1.NodeSelector') ?? undefined;
  }
  if (o.nodeSelector !== undefined && o.nodeSelector !== null) {
    const sel = expectObject(o.nodeSelector, `${field}.nodeSelector`, 'map[string]string')!;
    const out: Record<string, string> = {};
    for (const [k, s] of Object.entries(sel)) setOwn(out, k, expectString(s, `${field}.nodeSelector`) ?? '');
    claim.nodeSelector = out;
  }
  if (o.tolerations !== undefined && o.tolerations !== null) {
    if (!Array.isArray(o.tolerations)) throw new DecodeError(`json: cannot unmarshal ${kindOf(o.tolerations)} into Go struct field ${field}.tolerations of type []v1.Toleration`);
    claim.tolerations = o.tolerations;
  }
  return claim;
}

/** ReplicaRequirements{nodeClaim, resourceRequest, namespace, priorityClassName}. */
export function decodeRequirements(v: JsonValue, field = 'ReplicaRequirements'): ReplicaRequirements {
  const o = expectObject(v, field, 'v1alpha2.ReplicaRequirements') ?? {};
  const out: ReplicaRequirements = {};
  const nodeClaim = decodeNodeClaim(o.nodeClaim, `${field}.nodeClaim`);
  if (nodeClaim) out.nodeClaim = nodeClaim;
  const rr = decodeResourceList(o.resourceRequest, `${field}.resourceRequest`);
  if (rr) out.resourceRequest = rr;
  const ns = expectString(o.namespace, `${field}.namespace`);
  if (ns) out.namespace = ns;
  const pc = expectString(o.priorityClassName, `${field}.priorityClassName`);
  if (pc) out.priorityClassName = pc;
  return out;
}

/** []Component{name, replicas (int32), replicaRequirements}. */
export function decodeComponents(v: JsonValue): Component[] {
  if (v === null) return [];
  if (!Array.isArray(v)) throw new DecodeError(`json: cannot unmarshal ${kindOf(v)} into Go value of type []v1alpha2.Component`);
  return v.map((el) => {
    const o = expectObject(el, 'Component', 'v1alpha2.Component') ?? {};
    const c: Component = { name: expectString(o.name, 'Component.name') ?? '', replicas: 0 };
    const r = o.replicas;
    if (r !== undefined && r !== null) {
      if (typeof r !== 'number') throw new DecodeError(`json: cannot unmarshal ${kindOf(r)} into Go struct field Component.replicas of type int32`);
      if (!Number.isInteger(r) || r > 2147483647 || r < -2147483648) {
        throw new DecodeError(`json: cannot unmarshal number ${r} into Go struct field Component.replicas of type int32`);
      }
      c.replicas = r;
    }
    if (o.replicaRequirements !== undefined && o.replicaRequirements !== null) {
      const req = decodeRequirements(o.replicaRequirements, 'Component.replicaRequirements');
      delete req.namespace;
      c.replicaRequirements = req;
    }
    return c;
  });
}
