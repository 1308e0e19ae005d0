/**
 * Progress of a long `plan` on stderr: documents loaded, then the controllers' writes while the plan
 * settles. Nothing is drawn for a plan that ends within `afterMs`, nor when stderr is not a terminal
 * (a pipe, a file, CI), so output that is captured never holds escape sequences.
 */
import cliProgress from 'cli-progress';
import type { PlanProgress } from '../store/plan.js';

export interface ProgressDisplay {
  onProgress: (p: PlanProgress) => void;
  /** Clears the bar (it leaves no line behind). */
  stop: () => void;
}

export function planProgress(stream: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr, afterMs = 2000, now: () => number = Date.now): ProgressDisplay {
  if (!stream.isTTY) return { onProgress: () => {}, stop: () => {} };
  const started = now();
  let bar: cliProgress.SingleBar | undefined;
  return {
    onProgress: (p) => {
      const payload = { phase: p.phase === 'load' ? 'loading' : 'settling', writes: p.writes };
      if (bar) {
        bar.update(p.loaded, payload);
        return;
      }
      if (now() - started < afterMs) return;
      bar = new cliProgress.SingleBar(
        { stream, format: 'plan [{bar}] {phase}: {value}/{total} documents, {writes} writes', clearOnComplete: true, hideCursor: true, barsize: 24 },
        cliProgress.Presets.shades_classic,
      );
      bar.start(p.total, p.loaded, payload);
    },
    stop: () => bar?.stop(),
  };
}
