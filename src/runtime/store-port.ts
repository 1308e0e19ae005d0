/**
 * The store interface the runner and the CLI use: the core's read port plus writes, watches and
 * events. Two implementations: the embedded in-memory control plane (src/store/embedded.ts) and the Kubernetes one
 * (controller issue). `cluster` undefined addresses the control plane; a name addresses that member.
 */
import type { CoreEvent, ObjectReader } from '../core/ports.js';
import type { KObject, ObjectRef } from '../core/object.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchEvent {
  type: WatchEventType;
  object: KObject;
  /** The object before a MODIFIED or DELETED event. */
  old?: KObject;
  cluster?: string;
  /** Set by the runner: the controller whose write caused the change. */
  origin?: string;
}

export type WatchHandler = (ev: WatchEvent) => void;

export type StoreErrorCode = 'NotFound' | 'AlreadyExists' | 'Conflict' | 'Invalid' | 'Forbidden';

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

export const isNotFound = (e: unknown): boolean => e instanceof StoreError && e.code === 'NotFound';
export const isConflict = (e: unknown): boolean => e instanceof StoreError && e.code === 'Conflict';

/** An event as stored: Kubernetes-style aggregation of repeats into a count. */
export interface RecordedEvent extends CoreEvent {
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
}

export interface Store extends ObjectReader {
  create(obj: KObject, cluster?: string): KObject;
  /** Replaces everything but status; fails with Conflict when metadata.resourceVersion is set and stale. */
  update(obj: KObject, cluster?: string): KObject;
  /** Replaces status only (the status subresource). */
  updateStatus(obj: KObject, cluster?: string): KObject;
  /** Requests deletion: objects with finalizers get a deletionTimestamp, others go at once (dependents too). */
  delete(ref: ObjectRef, cluster?: string): void;
  watch(handler: WatchHandler): () => void;
  recordEvent(ev: CoreEvent): void;
  events(): readonly RecordedEvent[];
}
