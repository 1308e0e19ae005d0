/**
 * A steady loop of InterpretHealth on the realistic Deployment, for a CPU profile of the Lua path:
 * `node --cpu-prof --cpu-prof-dir=DIR --import tsx bench/lua-health-profile.ts [--lean] [--seconds N]`.
 * Built-in interpreters/apps/v1/Deployment by default; `--lean` runs the Karmada-style script of
 * bench/interpreter.bench.ts instead. Prints calls per second of wall time (profiling slows it down: for
 * figures use bench/interpreter.bench.ts --health).
 */
import { createInterpreter } from '../src/interpreter/interpreter.js';
import type { RIC } from '../src/interpreter/types.js';
import { LEAN_HEALTH_SCRIPT, realisticDeployment } from './deployment-fixture.js';

const args = process.argv.slice(2);
const secondsIdx = args.indexOf('--seconds');
const seconds = secondsIdx >= 0 ? Number(args[secondsIdx + 1]) : 6;

const LEAN_HEALTH: RIC = {
  apiVersion: 'config.karmada.io/v1alpha1',
  kind: 'ResourceInterpreterCustomization',
  metadata: { name: 'profile-lean-deployment' },
  spec: {
    target: { apiVersion: 'apps/v1', kind: 'Deployment' },
    customizations: {
      healthInterpretation: {
        luaScript: LEAN_HEALTH_SCRIPT,
      },
    },
  },
};

const interp = args.includes('--lean') ? createInterpreter({ customizations: [LEAN_HEALTH], builtin: false }) : createInterpreter();
const d = realisticDeployment();
const t0 = performance.now();
let n = 0;
while (performance.now() - t0 < seconds * 1000) {
  for (let i = 0; i < 1000; i++) interp.interpretHealth(d);
  n += 1000;
}
console.log(`${Math.round(n / seconds)} InterpretHealth calls/s (under the profiler)`);
