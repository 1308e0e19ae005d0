/**
 * Deciding whether a compiled chunk may be run once and its functions reused across calls.
 *
 * Karmada runs the whole chunk on every call. Running it once gives the same results only when the
 * chunk's top level leaves no state a call could change or observe differently later: no tables built
 * at the top level, no calls other than `require(...)`, no assignments to upvalues anywhere (so
 * top-level locals stay constant), and straight-line top-level code. Globals written during a call go
 * to a per-call layer that is cleared afterwards, so they are covered separately.
 */
import lopcodesModule from 'fengari/src/lopcodes.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const lopcodes: any = lopcodesModule;
const OP = lopcodes.OpCodesI as Record<string, number>;

const MAIN_FORBIDDEN = new Set(
  [
    'OP_NEWTABLE',
    'OP_SETLIST',
    'OP_SETTABLE',
    'OP_SELF',
    'OP_TAILCALL',
    'OP_TFORCALL',
    'OP_TFORLOOP',
    'OP_SETUPVAL',
    'OP_JMP',
    'OP_TEST',
    'OP_TESTSET',
    'OP_EQ',
    'OP_LT',
    'OP_LE',
    'OP_FORPREP',
    'OP_FORLOOP',
    'OP_LOADKX',
    'OP_EXTRAARG',
  ].map((n) => OP[n]),
);

function anySetUpval(p: any): boolean {
  for (const i of p.code) if (i.opcode === OP.OP_SETUPVAL) return true;
  for (const child of p.p) if (anySetUpval(child)) return true;
  return false;
}

function constantString(p: any, rk: number): string | null {
  if (!lopcodes.ISK(rk)) return null;
  const k = p.k[lopcodes.INDEXK(rk)];
  if (!k || !k.ttisstring()) return null;
  return Buffer.from(k.svalue()).toString('latin1');
}

/** True when running the main chunk once is indistinguishable from running it before every call. */
export function chunkIsReusable(mainProto: any): boolean {
  if (anySetUpval(mainProto)) return false;
  const requireRegs = new Set<number>();
  for (const i of mainProto.code) {
    const op = i.opcode;
    if (MAIN_FORBIDDEN.has(op)) return false;
    if (op === OP.OP_CALL) {
      if (!requireRegs.has(i.A)) return false;
      requireRegs.clear();
      continue;
    }
    if (op === OP.OP_GETTABUP && i.B === 0 && constantString(mainProto, i.C) === 'require') {
      requireRegs.add(i.A);
      continue;
    }
    if (op === OP.OP_LOADNIL) {
      for (let r = i.A; r <= i.A + i.B; r++) requireRegs.delete(r);
      continue;
    }
    requireRegs.delete(i.A);
  }
  return true;
}
