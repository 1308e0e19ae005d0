// The typed boundary (issue #16): what a reader returns has its kind's generated type, so a reconciler
// needs no cast and a misspelt field is a compile error. `npx tsc --noEmit` checks the type assertions
// and the @ts-expect-error lines (an unused one is an error too); vitest runs the rest.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Cluster, ResourceBinding, ResourceBindingSpec, Work } from '../../src/api/generated/types.js';
import { bindingType, CLUSTER, RB, WORK, type Binding } from '../../src/core/kinds.js';
import type { KObject, TypeRef } from '../../src/core/object.js';
import { isChangeOf, type ObjectChange, type ObjectReader } from '../../src/core/ports.js';
import { EmbeddedStore } from '../../src/store/embedded.js';

function reader(): ObjectReader {
  const store = new EmbeddedStore();
  store.create({
    apiVersion: 'work.karmada.io/v1alpha1',
    kind: 'Work',
    metadata: { name: 'web', namespace: 'karmada-es-m1' },
    spec: { workload: { manifests: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: 'default' } }] } },
  });
  store.create({
    apiVersion: 'work.karmada.io/v1alpha2',
    kind: 'ResourceBinding',
    metadata: { name: 'web-configmap', namespace: 'default' },
    spec: { resource: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'web' }, clusters: [{ name: 'm1' }] },
  });
  return store;
}

describe('the typed boundary', () => {
  it('reader.get(WORK, ...) is a Work | undefined, list(RB) a ResourceBinding[], an untyped ref any KObject', () => {
    const r = reader();
    const w = r.get(WORK, 'karmada-es-m1', 'web');
    expectTypeOf(w).toEqualTypeOf<Work | undefined>();
    expectTypeOf(r.list(RB)).toEqualTypeOf<ResourceBinding[]>();
    expectTypeOf(r.list(CLUSTER)).toEqualTypeOf<Cluster[]>();
    expectTypeOf(r.get(bindingType(RB), 'default', 'web-configmap')).toEqualTypeOf<Binding | undefined>();
    const template: TypeRef = { apiVersion: 'v1', kind: 'ConfigMap' };
    expectTypeOf(r.get(template, 'default', 'web')).toEqualTypeOf<KObject | undefined>();
    // The typed fields read without a cast.
    expect(w?.spec.workload?.manifests?.[0]?.kind).toBe('ConfigMap');
    expect(r.list(RB)[0]?.spec.clusters?.map((c) => c.name)).toEqual(['m1']);
  });

  it('a misspelt field of a binding spec does not compile', () => {
    const b = reader().list(RB)[0]!;
    // @ts-expect-error ResourceBindingSpec has `clusters`, not `clustrs`.
    expect(b.spec.clustrs).toBeUndefined();
    const spec: ResourceBindingSpec = {
      resource: { apiVersion: 'v1', kind: 'ConfigMap', name: 'web' },
      // @ts-expect-error an object literal with an unknown field is refused too.
      replica: 2,
    };
    expect(spec.replicas).toBeUndefined();
    // @ts-expect-error a target cluster's replicas is a number.
    const target: NonNullable<ResourceBindingSpec['clusters']>[number] = { name: 'm1', replicas: '2' };
    expect(target.name).toBe('m1');
  });

  it('a watch event of a kind narrows to its type with isChangeOf, not a cast', () => {
    const object: KObject = reader().get(WORK, 'karmada-es-m1', 'web')!;
    const c: ObjectChange = { type: 'MODIFIED', object, old: object };
    expect(isChangeOf(c, RB)).toBe(false);
    if (!isChangeOf(c, WORK)) throw new Error('a change to a Work is a change of WORK');
    expectTypeOf(c.object).toEqualTypeOf<Work>();
    expectTypeOf(c.old).toEqualTypeOf<Work | undefined>();
  });

  it('a typed kind is assignable to KObject (its writes need no cast), not the other way round', () => {
    expectTypeOf<Work>().toMatchTypeOf<KObject>();
    expectTypeOf<Binding>().toMatchTypeOf<KObject>();
    expectTypeOf<KObject>().not.toMatchTypeOf<Work>();
    expectTypeOf<TypeRef<Work>>().toMatchTypeOf<TypeRef>();
    expectTypeOf<TypeRef>().not.toMatchTypeOf<TypeRef<Work>>();
  });
});
