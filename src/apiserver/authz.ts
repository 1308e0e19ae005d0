// Authorization of every request by a SubjectAccessReview against the host, the delegated authorizer of
// k8s.io/apiserver: the host's RBAC decides what a caller may do here. Answers are cached briefly, allowed
// and denied for their own TTLs (kube-apiserver's --authorization-webhook-cache-*-ttl defaults: 5 minutes
// and 30 seconds; an aggregated server's delegating defaults are 10 s for both).
import type { RequestInfo, UserInfo } from './types.js';

export interface SarClient {
  request<T = any>(method: string, path: string, opts?: { body?: unknown; signal?: AbortSignal }): Promise<T>;
}

export interface Decision { allowed: boolean; reason?: string }

export interface AuthorizerOptions {
  allowTtlMs?: number;
  denyTtlMs?: number;
  /** Entries kept at most; the oldest go first. */
  maxEntries?: number;
  now?: () => number;
  /** Paths answered without asking (health checks the host's kubelet or the aggregator probe). */
  alwaysAllowPaths?: string[];
}

export const DEFAULT_ALLOW_TTL_MS = 10_000;
export const DEFAULT_DENY_TTL_MS = 10_000;

export function subjectAccessReview(user: UserInfo, info: RequestInfo): Record<string, unknown> {
  const spec: Record<string, unknown> = { user: user.name, groups: user.groups, extra: user.extra };
  if (user.uid) spec.uid = user.uid;
  if (info.isResourceRequest) {
    const attrs: Record<string, string> = { verb: info.verb, group: info.apiGroup, version: info.apiVersion, resource: info.resource ?? '' };
    if (info.namespace) attrs.namespace = info.namespace;
    if (info.subresource) attrs.subresource = info.subresource;
    if (info.name) attrs.name = info.name;
    spec.resourceAttributes = attrs;
  } else {
    spec.nonResourceAttributes = { path: info.path, verb: info.verb };
  }
  return { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec };
}

export class SarAuthorizer {
  private readonly cache = new Map<string, { decision: Decision; expires: number }>();
  private readonly inflight = new Map<string, Promise<Decision>>();
  private readonly now: () => number;

  constructor(
    private readonly client: SarClient,
    private readonly opts: AuthorizerOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
  }

  async authorize(user: UserInfo, info: RequestInfo): Promise<Decision> {
    if (!info.isResourceRequest && this.opts.alwaysAllowPaths?.includes(info.path)) return { allowed: true };
    const review = subjectAccessReview(user, info);
    const key = JSON.stringify(review.spec);
    const hit = this.cache.get(key);
    if (hit && hit.expires > this.now()) return hit.decision;
    let pending = this.inflight.get(key);
    if (!pending) {
      pending = this.ask(review).finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    const decision = await pending;
    this.remember(key, decision);
    return decision;
  }

  private async ask(review: Record<string, unknown>): Promise<Decision> {
    const r = await this.client.request<{ status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string } }>(
      'POST',
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      { body: review },
    );
    const s = r?.status ?? {};
    const reason = s.reason || s.evaluationError || undefined;
    return s.allowed === true && s.denied !== true ? { allowed: true, ...(reason ? { reason } : {}) } : { allowed: false, ...(reason ? { reason } : {}) };
  }

  private remember(key: string, decision: Decision): void {
    const ttl = decision.allowed ? (this.opts.allowTtlMs ?? DEFAULT_ALLOW_TTL_MS) : (this.opts.denyTtlMs ?? DEFAULT_DENY_TTL_MS);
    if (ttl <= 0) return;
    this.cache.delete(key);
    this.cache.set(key, { decision, expires: this.now() + ttl });
    const max = this.opts.maxEntries ?? 10_000;
    while (this.cache.size > max) this.cache.delete(this.cache.keys().next().value!);
  }
}
