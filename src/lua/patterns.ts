/**
 * Lua 5.1 pattern matching over bytes, with a step budget.
 *
 * fengari's own matcher runs inside one library call, where the VM's instruction hook never fires, so a
 * pathological pattern (`(a*)*b` style backtracking over a long subject) would stall the process. This
 * matcher calls `tick()` every few thousand steps; the sandbox makes `tick` throw once the call's
 * deadline has passed.
 */

export class PatternError extends Error {}

const L_ESC = 37; // '%'
const MAXCAPTURES = 32;
const CAP_UNFINISHED = -1;
const CAP_POSITION = -2;
const MAXDEPTH = 200;

export interface Capture {
  start: number;
  len: number;
}

interface MatchState {
  src: Uint8Array;
  pat: Uint8Array;
  level: number;
  capture: Capture[];
  depth: number;
  steps: number;
  tick: () => void;
}

function classEnd(ms: MatchState, p: number): number {
  const pat = ms.pat;
  if (pat[p++] === L_ESC) {
    if (p >= pat.length) throw new PatternError("malformed pattern (ends with '%')");
    return p + 1;
  }
  if (pat[p - 1] === 91 /* [ */) {
    if (pat[p] === 94 /* ^ */) p++;
    do {
      if (p >= pat.length) throw new PatternError("malformed pattern (missing ']')");
      const c = pat[p++];
      if (c === L_ESC && p < pat.length) p++;
    } while (pat[p] !== 93 /* ] */);
    return p + 1;
  }
  return p;
}

const isalpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isdigit = (c: number) => c >= 48 && c <= 57;
const islower = (c: number) => c >= 97 && c <= 122;
const isupper = (c: number) => c >= 65 && c <= 90;
const isspace = (c: number) => c === 32 || (c >= 9 && c <= 13);
const iscntrl = (c: number) => c < 32 || c === 127;
const ispunct = (c: number) => c > 32 && c < 127 && !isalpha(c) && !isdigit(c);
const isxdigit = (c: number) => isdigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);

function singleClass(c: number, cl: number): boolean {
  let res: boolean;
  switch (cl | 0x20) {
    case 97 /* a */:
      res = isalpha(c);
      break;
    case 99 /* c */:
      res = iscntrl(c);
      break;
    case 100 /* d */:
      res = isdigit(c);
      break;
    case 108 /* l */:
      res = islower(c);
      break;
    case 112 /* p */:
      res = ispunct(c);
      break;
    case 115 /* s */:
      res = isspace(c);
      break;
    case 117 /* u */:
      res = isupper(c);
      break;
    case 119 /* w */:
      res = isalpha(c) || isdigit(c);
      break;
    case 120 /* x */:
      res = isxdigit(c);
      break;
    case 122 /* z */:
      res = c === 0;
      break;
    default:
      return cl === c;
  }
  return isupper(cl) ? !res : res;
}

function matchClass(ms: MatchState, c: number, p: number, ep: number): boolean {
  const pat = ms.pat;
  let sig = true;
  p++;
  if (pat[p] === 94) {
    sig = false;
    p++;
  }
  while (p < ep - 1) {
    if (pat[p] === L_ESC) {
      p++;
      if (singleClass(c, pat[p]!)) return sig;
      p++;
    } else if (pat[p + 1] === 45 /* - */ && p + 2 < ep - 1) {
      if (pat[p]! <= c && c <= pat[p + 2]!) return sig;
      p += 3;
    } else {
      if (pat[p] === c) return sig;
      p++;
    }
  }
  return !sig;
}

function singleMatch(ms: MatchState, s: number, p: number, ep: number): boolean {
  if (s >= ms.src.length) return false;
  const c = ms.src[s]!;
  switch (ms.pat[p]) {
    case 46 /* . */:
      return true;
    case L_ESC:
      return singleClass(c, ms.pat[p + 1]!);
    case 91 /* [ */:
      return matchClass(ms, c, p, ep);
    default:
      return ms.pat[p] === c;
  }
}

function matchBalance(ms: MatchState, s: number, p: number): number {
  if (p + 1 >= ms.pat.length) throw new PatternError('missing arguments to %b');
  if (s >= ms.src.length || ms.src[s] !== ms.pat[p]) return -1;
  const b = ms.pat[p]!;
  const e = ms.pat[p + 1]!;
  let cont = 1;
  while (++s < ms.src.length) {
    step(ms);
    if (ms.src[s] === e) {
      if (--cont === 0) return s + 1;
    } else if (ms.src[s] === b) cont++;
  }
  return -1;
}

function step(ms: MatchState): void {
  if ((++ms.steps & 0xfff) === 0) ms.tick();
}

function maxExpand(ms: MatchState, s: number, p: number, ep: number): number {
  let i = 0;
  while (singleMatch(ms, s + i, p, ep)) {
    i++;
    step(ms);
  }
  while (i >= 0) {
    const res = doMatch(ms, s + i, ep + 1);
    if (res !== -1) return res;
    i--;
  }
  return -1;
}

function minExpand(ms: MatchState, s: number, p: number, ep: number): number {
  for (;;) {
    const res = doMatch(ms, s, ep + 1);
    if (res !== -1) return res;
    if (singleMatch(ms, s, p, ep)) s++;
    else return -1;
  }
}

function startCapture(ms: MatchState, s: number, p: number, what: number): number {
  if (ms.level >= MAXCAPTURES) throw new PatternError('too many captures');
  ms.capture[ms.level] = { start: s, len: what };
  ms.level++;
  const res = doMatch(ms, s, p);
  if (res === -1) ms.level--;
  return res;
}

function endCapture(ms: MatchState, s: number, p: number): number {
  const l = captureToClose(ms);
  ms.capture[l]!.len = s - ms.capture[l]!.start;
  const res = doMatch(ms, s, p);
  if (res === -1) ms.capture[l]!.len = CAP_UNFINISHED;
  return res;
}

function captureToClose(ms: MatchState): number {
  let level = ms.level;
  for (level--; level >= 0; level--) if (ms.capture[level]!.len === CAP_UNFINISHED) return level;
  throw new PatternError('invalid pattern capture');
}

function checkCapture(ms: MatchState, l: number): number {
  l -= 49; // '1'
  if (l < 0 || l >= ms.level || ms.capture[l]!.len === CAP_UNFINISHED) throw new PatternError('invalid capture index');
  return l;
}

function matchCapture(ms: MatchState, s: number, l: number): number {
  l = checkCapture(ms, l);
  const { start, len } = ms.capture[l]!;
  if (ms.src.length - s >= len) {
    for (let i = 0; i < len; i++) if (ms.src[start + i] !== ms.src[s + i]) return -1;
    return s + len;
  }
  return -1;
}

function doMatch(ms: MatchState, s: number, p: number): number {
  if (ms.depth++ > MAXDEPTH) throw new PatternError('pattern too complex');
  try {
    const pat = ms.pat;
    for (;;) {
      step(ms);
      if (p >= pat.length) return s;
      switch (pat[p]) {
        case 40 /* ( */:
          if (pat[p + 1] === 41) return startCapture(ms, s, p + 2, CAP_POSITION);
          return startCapture(ms, s, p + 1, CAP_UNFINISHED);
        case 41 /* ) */:
          return endCapture(ms, s, p + 1);
        case 36 /* $ */:
          if (p + 1 === pat.length) return s === ms.src.length ? s : -1;
          break;
        case L_ESC: {
          const nc = pat[p + 1];
          if (nc === 98 /* b */) {
            s = matchBalance(ms, s, p + 2);
            if (s !== -1) {
              p += 4;
              continue;
            }
            return -1;
          }
          if (nc === 102 /* f */) {
            p += 2;
            if (pat[p] !== 91) throw new PatternError("missing '[' after '%f' in pattern");
            const ep = classEnd(ms, p);
            const prev = s === 0 ? 0 : ms.src[s - 1]!;
            const cur = s < ms.src.length ? ms.src[s]! : 0;
            if (!matchClass(ms, prev, p, ep) && matchClass(ms, cur, p, ep)) {
              p = ep;
              continue;
            }
            return -1;
          }
          if (nc !== undefined && isdigit(nc)) {
            s = matchCapture(ms, s, nc);
            if (s !== -1) {
              p += 2;
              continue;
            }
            return -1;
          }
          break;
        }
        default:
          break;
      }
      const ep = classEnd(ms, p);
      const epc = pat[ep];
      if (!singleMatch(ms, s, p, ep)) {
        if (epc === 42 /* * */ || epc === 63 /* ? */ || epc === 45 /* - */) {
          p = ep + 1;
          continue;
        }
        return -1;
      }
      switch (epc) {
        case 63 /* ? */: {
          const res = doMatch(ms, s + 1, ep + 1);
          if (res !== -1) return res;
          p = ep + 1;
          continue;
        }
        case 43 /* + */:
          return maxExpand(ms, s + 1, p, ep);
        case 42 /* * */:
          return maxExpand(ms, s, p, ep);
        case 45 /* - */:
          return minExpand(ms, s, p, ep);
        default:
          s++;
          p = ep;
          continue;
      }
    }
  } finally {
    ms.depth--;
  }
}

export type CaptureValue = Uint8Array | number;

function getCapture(ms: MatchState, i: number, s: number, e: number): CaptureValue {
  if (i >= ms.level) {
    if (i === 0) return ms.src.subarray(s, e);
    throw new PatternError('invalid capture index');
  }
  const { start, len } = ms.capture[i]!;
  if (len === CAP_UNFINISHED) throw new PatternError('unfinished capture');
  if (len === CAP_POSITION) return start + 1;
  return ms.src.subarray(start, start + len);
}

function captures(ms: MatchState, s: number, e: number, wholeIfNone: boolean): CaptureValue[] {
  const n = ms.level === 0 && wholeIfNone ? 1 : ms.level;
  const out: CaptureValue[] = [];
  for (let i = 0; i < n; i++) out.push(getCapture(ms, i, s, e));
  return out;
}

function newState(src: Uint8Array, pat: Uint8Array, tick: () => void): MatchState {
  return { src, pat, level: 0, capture: [], depth: 0, steps: 0, tick };
}

export interface FindResult {
  start: number; // 1-based
  end: number; // 1-based inclusive
  captures: CaptureValue[];
}

/** Needles up to this long are searched naively: at most this many compares per haystack byte. */
const SHORT_NEEDLE = 16;

/**
 * The first `needle` in `hay` at or after `from`. Longer needles take Knuth-Morris-Pratt, linear in both
 * lengths whatever they hold: a naive search (Buffer.indexOf's included) of a 30 KB needle of zeros with
 * one other byte in its middle, against a 1 MB haystack of zeros, makes 3e10 compares (50 s). `tick`
 * every 64 KiB of haystack keeps it under the call's budget all the same.
 */
function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from: number, tick: () => void): number {
  const m = needle.length;
  if (m === 0) return from;
  if (m <= SHORT_NEEDLE) {
    outer: for (let i = from; i + m <= hay.length; i++) {
      if ((i & 0xffff) === 0) tick();
      for (let j = 0; j < m; j++) if (hay[i + j] !== needle[j]) continue outer;
      return i;
    }
    return -1;
  }
  // fail[j]: the length of the longest proper prefix of needle[0..j] that is also its suffix.
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && needle[i] !== needle[k]) k = fail[k - 1]!;
    if (needle[i] === needle[k]) k++;
    fail[i] = k;
  }
  for (let i = from, k = 0; i < hay.length; i++) {
    if ((i & 0xffff) === 0) tick();
    const c = hay[i];
    while (k > 0 && c !== needle[k]) k = fail[k - 1]!;
    if (c === needle[k]) k++;
    if (k === m) return i - m + 1;
  }
  return -1;
}

const SPECIALS = new Set([94, 36, 42, 43, 63, 46, 40, 41, 91, 93, 37, 45]);

/** string.find / string.match core. `init` is a 0-based start offset already clamped. */
export function patternFind(
  src: Uint8Array,
  pat: Uint8Array,
  init: number,
  plain: boolean,
  find: boolean,
  tick: () => void,
): FindResult | null {
  if (find && (plain || !pat.some((c) => SPECIALS.has(c)))) {
    const i = indexOfBytes(src, pat, init, tick);
    return i < 0 ? null : { start: i + 1, end: i + pat.length, captures: [] };
  }
  let p = 0;
  const anchor = pat[0] === 94;
  if (anchor) p = 1;
  let s = init;
  const ms = newState(src, pat, tick);
  do {
    ms.level = 0;
    ms.depth = 0;
    const e = doMatch(ms, s, p);
    if (e !== -1) {
      return { start: s + 1, end: e, captures: captures(ms, s, e, !find) };
    }
    s++;
  } while (s <= src.length && !anchor);
  return null;
}

/** string.gmatch iterator (Lua 5.1: an empty match advances one byte; `^` is not an anchor). */
export function patternGmatch(src: Uint8Array, pat: Uint8Array, tick: () => void): () => CaptureValue[] | null {
  let pos = 0;
  const ms = newState(src, pat, tick);
  return () => {
    for (let s = pos; s <= src.length; s++) {
      ms.level = 0;
      ms.depth = 0;
      const e = doMatch(ms, s, 0);
      if (e !== -1) {
        pos = e === s ? e + 1 : e;
        return captures(ms, s, e, true);
      }
    }
    pos = src.length + 1;
    return null;
  };
}

/**
 * string.gsub's scan as Lua 5.1 runs it (lstrlib str_gsub): up to `max` matches, an empty match copies
 * one byte and moves on, `^` anchors to the start. `replace` gets each match's bounds (0-based, end
 * exclusive) and captures (the whole match when the pattern has none) and returns the bytes to put in
 * its place; unmatched bytes are kept. Only the Argo CD health-check environment offers gsub.
 */
export function patternGsub(
  src: Uint8Array,
  pat: Uint8Array,
  max: number,
  tick: () => void,
  replace: (start: number, end: number, caps: CaptureValue[]) => Uint8Array,
): { parts: Uint8Array[]; count: number } {
  const anchor = pat[0] === 94;
  const p = anchor ? 1 : 0;
  const ms = newState(src, pat, tick);
  const parts: Uint8Array[] = [];
  let s = 0;
  let copied = 0;
  let count = 0;
  while (count < max) {
    ms.level = 0;
    ms.depth = 0;
    const e = doMatch(ms, s, p);
    if (e !== -1) {
      count++;
      if (s > copied) parts.push(src.subarray(copied, s));
      parts.push(replace(s, e, captures(ms, s, e, true)));
      copied = e;
    }
    if (e !== -1 && e > s) s = e;
    else if (s < src.length) s++;
    else break;
    if (anchor) break;
  }
  if (copied < src.length) parts.push(src.subarray(Math.max(copied, 0)));
  return { parts, count };
}
