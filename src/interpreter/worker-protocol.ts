/** The messages between the interpreter pool (main thread) and its workers (worker.ts). */
import type { RIC } from './types.js';

/** The interpreter methods a worker answers: those the core's port calls for a user RIC. */
export type WorkerMethod = 'getReplicas' | 'reviseReplica' | 'retain' | 'reflectStatus' | 'interpretHealth' | 'aggregatedStatus' | 'getDependencies' | 'healthDetail';

export interface WorkerCall {
  type: 'call';
  id: number;
  method: WorkerMethod;
  args: unknown[];
}

/** Replaces the worker's RICs; sent before any call that needs them (a port keeps message order). */
export interface WorkerRics {
  type: 'rics';
  rics: RIC[];
}

export type WorkerRequest = WorkerCall | WorkerRics;

/**
 * pure: the script read nothing but its arguments (no clock, random numbers, addresses, print).
 * grownBytes: how far the worker's JS heap plus external memory (ArrayBuffers: Lua strings are byte
 * arrays) stands above what it held when it started, after the call; the pool replaces a worker that
 * stays far above it (garbage V8 has not collected, or state a script left behind), so that what a call
 * allocated is given back. Absent from workers that do not measure (tests' stand-ins).
 */
export type WorkerReply =
  | { id: number; ok: true; value: unknown; pure: boolean; grownBytes?: number }
  | { id: number; ok: false; message: string; pure: boolean; grownBytes?: number };

/**
 * Sent when the worker begins a call. The budget is counted from here: a worker that is still starting,
 * or compiling new RICs, on a loaded machine has not begun running the script.
 */
export interface WorkerStarted {
  type: 'started';
  id: number;
}

export type WorkerMessage = WorkerReply | WorkerStarted;
