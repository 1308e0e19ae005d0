/**
 * The typed boundary for readers a test writes itself (stubs, views over a store): an object kept under
 * `type` is of that type. src/ readers narrow where they look objects up (src/store/embedded.ts,
 * src/kube/store.ts); this is the same promise for a test's own.
 */
import type { KObject, TypeRef } from '../src/core/object.js';

export function narrow<T extends KObject>(_type: TypeRef<T>, o: KObject | undefined): T | undefined {
  return o as T | undefined;
}

export function narrowAll<T extends KObject>(_type: TypeRef<T>, list: KObject[]): T[] {
  return list as T[];
}
