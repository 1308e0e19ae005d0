// The contract between the aggregated API server (src/apiserver) and the handlers mounted on it
// (karmada-search in src/search, the cluster proxy and Cluster storage here). Handlers run only after
// request-header authentication and SubjectAccessReview authorization have passed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

export interface UserInfo { name: string; groups: string[]; extra: Record<string, string[]>; uid?: string }

/** What the server resolved from the path before a handler runs (k8s RequestInfo). */
export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string;
  apiGroup: string;
  apiVersion: string;
  namespace?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  parts: string[];
}

/** A handler owns every request under its prefix (after authentication and authorization passed). */
export interface ApiHandler {
  prefix: string; // e.g. '/apis/search.karmada.io/v1alpha1/search/'
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: { user: UserInfo; info: RequestInfo; signal: AbortSignal },
  ): Promise<void> | void;
  /**
   * A request with `Connection: Upgrade` (exec, attach, port-forward over SPDY or WebSocket), after the same
   * authentication and authorization; the handler owns the socket. Without it an upgrade is refused.
   */
  upgrade?(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    ctx: { user: UserInfo; info: RequestInfo; signal: AbortSignal },
  ): Promise<void> | void;
}

/** Discovery: the group-versions and resources the server announces (APIResourceList per group-version). */
export interface ApiGroupResources {
  groupVersion: string;
  resources: Array<{ name: string; namespaced: boolean; kind: string; verbs: string[] }>;
}
