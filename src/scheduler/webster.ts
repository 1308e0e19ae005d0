/**
 * Webster (Sainte-Laguë) seat allocation, Karmada's `AllocateWebsterSeats` (spec §2.2): each seat goes
 * to the party with the highest `votes / (2*seats + 1)`; ties go to the party with fewer seats, then
 * to a name order picked by a hash of the resource template's UID, so that equal clusters do not
 * always lose to the same neighbour across workloads.
 */

export interface Party {
  name: string;
  votes: number;
}

export interface Seats {
  name: string;
  seats: number;
}

/** FNV-1a, 32 bit, over the UTF-8 bytes of `s`. */
export function fnv1a32(s: string): number {
  let h = 0x811c9dc5;
  const step = (b: number): void => {
    h = Math.imul(h ^ b, 0x01000193) >>> 0;
  };
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) step(c);
    else {
      for (const b of new TextEncoder().encode(String.fromCodePoint(s.codePointAt(i)!))) step(b);
      if (c >= 0xd800 && c <= 0xdbff) i++;
    }
  }
  return h >>> 0;
}

/** Go compares strings bytewise; cluster names are ASCII, where UTF-16 order is the same. */
const byteLess = (a: string, b: string): boolean => a < b;

/** True when `a` wins a tie against `b`: an odd UID hash prefers the larger name, even (or no UID) the smaller. */
export type TieBreaker = (a: string, b: string) => boolean;

export function tieBreakerFor(uid: string | undefined): TieBreaker {
  if (uid && fnv1a32(uid) % 2 === 1) return (a, b) => byteLess(b, a);
  return (a, b) => byteLess(a, b);
}

interface Entry {
  name: string;
  votes: number;
  seats: number;
  priority: number;
}

/**
 * A strict total order on (party, current seats): every seat that sequential Webster gives out is the
 * best remaining pair, and within one party later seats rank strictly lower, so taking the best pair
 * from a heap `seats` times gives exactly the sequential result.
 */
function before(a: Entry, b: Entry, tie: TieBreaker): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (a.seats !== b.seats) return a.seats < b.seats;
  return tie(a.name, b.name);
}

function siftDown(h: Entry[], i: number, tie: TieBreaker): void {
  const n = h.length;
  const e = h[i]!;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const c = r < n && before(h[r]!, h[l]!, tie) ? r : l;
    if (!before(h[c]!, e, tie)) break;
    h[i] = h[c]!;
    i = c;
  }
  h[i] = e;
}

const priority = (votes: number, seats: number): number => votes / (2 * seats + 1);

/**
 * For many seats per party, hand out in one go every seat whose priority is strictly above a
 * threshold chosen so that fewer than `seats` of them exist. All of those rank above every seat left
 * unassigned, so the greedy result is unchanged; the heap then places the rest.
 */
function prefill(entries: Entry[], seats: number): number {
  let totalVotes = 0;
  for (const e of entries) totalVotes += e.votes;
  if (totalVotes <= 0 || seats < 4 * entries.length) return 0;
  // With threshold t a party gets about votes/(2t) seats; aim at half the seats to stay well under.
  const t = totalVotes / seats;
  let given = 0;
  for (const e of entries) {
    if (e.votes <= 0) continue;
    // Seats k with votes/(2k+1) > t, i.e. k < (votes/t - 1)/2; re-checked with the exact float expression.
    let k = Math.max(0, Math.floor((e.votes / t - 1) / 2) - 1);
    while (k > 0 && !(priority(e.votes, e.seats + k - 1) > t)) k--;
    while (priority(e.votes, e.seats + k) > t) k++;
    e.seats += k;
    given += k;
  }
  if (given > seats) {
    // Cannot happen with t = votes/seats (each party gets under votes/(2t) + 1), but never over-allocate.
    throw new Error('webster prefill over-allocated');
  }
  for (const e of entries) e.priority = priority(e.votes, e.seats);
  return given;
}

/**
 * Allocates `seats` seats. `initial` seats count towards each party's divisor. Output: every party
 * (zero seats included) sorted by name ascending, as Karmada returns it. `keepZero` lets a caller
 * that will drop empty entries anyway skip them early; it never changes the order of the rest.
 */
export function allocateWebsterSeats(
  seats: number,
  parties: readonly Party[],
  initial: ReadonlyMap<string, number> | null,
  tie: TieBreaker,
  keepZero?: (name: string) => boolean,
): Seats[] {
  const entries: Entry[] = parties.map((p) => {
    const s = initial?.get(p.name) ?? 0;
    return { name: p.name, votes: p.votes, seats: s, priority: priority(p.votes, s) };
  });
  if (entries.length > 0 && seats > 0) {
    let left = seats;
    if (!initial || initial.size === 0) left -= prefill(entries, seats);
    // A party without votes never wins a seat while another party has votes.
    const voting = entries.filter((e) => e.votes > 0);
    const heap = voting.length > 0 ? voting : entries.slice();
    for (let i = (heap.length >> 1) - 1; i >= 0; i--) siftDown(heap, i, tie);
    while (left > 0) {
      const top = heap[0]!;
      top.seats++;
      top.priority = priority(top.votes, top.seats);
      siftDown(heap, 0, tie);
      left--;
    }
  }
  const out: Seats[] = [];
  for (const e of entries) if (e.seats > 0 || !keepZero || keepZero(e.name)) out.push({ name: e.name, seats: e.seats });
  if (initial) {
    const named = new Set(parties.map((p) => p.name));
    for (const [name, s] of initial) if (!named.has(name)) out.push({ name, seats: s });
  }
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return out;
}

/**
 * Karmada's Dispenser with no initial result: nothing is allocated when every weight is zero, and
 * every party is listed otherwise.
 */
export function takeByWeight(
  replicas: number,
  parties: readonly Party[],
  uid: string | undefined,
  keepZero?: (name: string) => boolean,
): Seats[] {
  let sum = 0;
  for (const p of parties) sum += p.votes;
  if (sum === 0) return [];
  return allocateWebsterSeats(replicas, parties, null, tieBreakerFor(uid), keepZero);
}
