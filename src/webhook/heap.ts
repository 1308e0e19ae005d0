/**
 * The webhook's young generation, held at a few MB. V8 grows the new space under load up to 16 MB per
 * semi-space (two of them, plus the pages of a scavenge in progress): a third of the webhook's peak memory,
 * for a process that keeps almost nothing from one review to the next. Node fixes the maximum
 * (`--max-semi-space-size`) when the heap is made, so neither `node dist/karmada-lite.mjs` nor the
 * standalone executable (whose options Node 20 cannot embed) can set it; the growth factor, though, is read
 * each time the new space grows. Once the new space has reached the cap, growth is set to 1: no more.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

const newSpaceBytes = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;

/** Stops the new space growing past `semiSpaceMB` per semi-space; returns a stop function (the observer). */
export function capYoungGeneration(semiSpaceMB: number): () => void {
  // space_size counts both semi-spaces. The check runs after a collection: growth happens in one.
  const cap = 2 * semiSpaceMB * 1024 * 1024;
  const stopGrowing = () => setFlagsFromString('--semi-space-growth-factor=1');
  if (newSpaceBytes() >= cap) {
    stopGrowing();
    return () => undefined;
  }
  const observer = new PerformanceObserver(() => {
    if (newSpaceBytes() < cap) return;
    stopGrowing();
    observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}
