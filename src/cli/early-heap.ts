/**
 * The first module the CLI evaluates (main.ts imports it before anything else), for the webhook only:
 * - V8 grows the young generation during start-up as soon as loading the modules fills it, and never gives
 *   it back while reviews keep allocating. A review keeps almost nothing, so the young generation stays at
 *   V8's initial 1 MB per semi-space from the first allocation on. Node fixes `--max-semi-space-size` when
 *   the heap is made, which neither `node karmada-lite.mjs` nor the standalone executable can pass; the
 *   growth factor is read each time the new space would grow.
 * - `--optimize-for-size`, which V8's heap controller reads at each full collection: it then lets the old
 *   generation grow by less before the next one. Reviews promote short-lived garbage, which otherwise piled
 *   up (old space 17-29 MB under load against 8 MB idle; 8-14 MB with the flag).
 * Together, with the modules the webhook no longer loads, its peak under load went from 100 to 77 MB
 * (standalone executable) for about 10-20 % more server CPU per review (bench/README.md, Admission
 * webhook, "side by side"). `controller --with-webhook` keeps V8's defaults: it is not this command.
 */
import { setFlagsFromString } from 'node:v8';
import { commandWord } from './command-word.js';

export const WEBHOOK_YOUNG_GENERATION_MB = 1;

if (commandWord(process.argv.slice(2)) === 'webhook') setFlagsFromString('--semi-space-growth-factor=1 --optimize-for-size');
