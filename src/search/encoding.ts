// The proxy's multi-cluster resourceVersion and continue token (karmada-search.md 5.3, 5.4): byte for byte
// what Karmada writes, so a client that resumes a watch or a page against Karmada resumes against us.

/** `{cluster: memberRV}`; `zero` is the literal "0" (every cluster from the start of its cache). */
export interface MultiClusterRV {
  zero: boolean;
  byCluster: Map<string, string>;
}

export function emptyRV(): MultiClusterRV {
  return { zero: false, byCluster: new Map() };
}

/** Keys sorted, no spaces, nothing escaped (Karmada builds the bytes by hand), base64url without padding. */
export function encodeMultiClusterRV(rv: MultiClusterRV): string {
  if (rv.byCluster.size === 0) return rv.zero ? '0' : '';
  const keys = [...rv.byCluster.keys()].sort();
  const json = '{' + keys.map((k) => `"${k}":"${rv.byCluster.get(k)}"`).join(',') + '}';
  return Buffer.from(json, 'utf8').toString('base64url');
}

/** Anything that does not decode is "no resourceVersion", as in Karmada: never an error. */
export function decodeMultiClusterRV(s: string | null | undefined): MultiClusterRV {
  if (!s) return emptyRV();
  if (s === '0') return { zero: true, byCluster: new Map() };
  const parsed = decodeJson(s);
  const byCluster = new Map<string, string>();
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') byCluster.set(k, v);
  }
  return { zero: false, byCluster };
}

/** The resourceVersion to ask one cluster for: "0" in the zero case, "" (latest) for a cluster not in the map. */
export function clusterRV(rv: MultiClusterRV, cluster: string): string {
  return rv.byCluster.get(cluster) ?? (rv.zero ? '0' : '');
}

export function isMultiClusterRV(s: string): boolean {
  return s !== '' && s !== '0' && decodeMultiClusterRV(s).byCluster.size > 0;
}

export interface ContinueToken {
  rv: string;
  cluster: string;
  continue: string;
}

/** Field order rv, cluster, continue; the last two left out when empty; no cluster means no more pages. */
export function encodeContinue(t: ContinueToken): string {
  if (!t.cluster) return '';
  const o: Record<string, string> = { rv: t.rv, cluster: t.cluster };
  if (t.continue) o.continue = t.continue;
  return Buffer.from(JSON.stringify(o), 'utf8').toString('base64url');
}

/** An undecodable token is no token (Karmada ignores it). */
export function decodeContinue(s: string | null | undefined): ContinueToken | undefined {
  if (!s) return undefined;
  const o = decodeJson(s) as Partial<Record<keyof ContinueToken, unknown>> | undefined;
  if (!o || typeof o !== 'object' || typeof o.cluster !== 'string' || !o.cluster) return undefined;
  return { rv: typeof o.rv === 'string' ? o.rv : '', cluster: o.cluster, continue: typeof o.continue === 'string' ? o.continue : '' };
}

function decodeJson(s: string): unknown {
  if (!/^[A-Za-z0-9_-]+$/.test(s)) return undefined;
  try {
    return JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}
