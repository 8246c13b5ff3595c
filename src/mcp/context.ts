/**
 * What one MCP session's tools, resources and subscriptions read and who calls them (McpContext),
 * and the request they make of the REST answer path (RepresentRequest): given by the composition
 * root (mmds mcp, POST /mcp) to every module of mcp/.
 */
import type { Caller } from '../contract/authorise.ts';
import type { RequestParams } from '../contract/parse-request.ts';
import type { RouteDefinition } from '../contract/routes.ts';
import type { SnapshotDb } from '../query/snapshot-db.ts';
import type { ReplicaStatus } from '../store/object-store/follow-store.ts';

/** What the tools of one MCP session read and who calls them. */
export interface McpContext {
  snapshot: () => SnapshotDb | null;
  /**
   * The caller of a tool call: null when anonymous. Throws the ApiError of a refused key (401),
   * so a key revoked during a long stdio session stops working from the next call.
   */
  caller: () => Promise<Caller | null>;
  now: () => Date;
  /** The id errors carry: the HTTP request's, or a new one per stdio call. */
  requestId: () => string;
  log: (entry: Record<string, unknown>) => void;
  /** Tokens (CHARS_PER_TOKEN rule) one answer may take; DEFAULT_TOKEN_BUDGET when absent. */
  budgetTokens?: number;
  /**
   * The origin download links of an over-budget answer start with (`https://host`): the HTTP
   * request's own, or `mmds mcp --public-url`; null when unknown (the answer then gives the path).
   */
  publicBaseUrl: string | null;
  /** An instance following a bucket: where it stands, for the status tool (HandlerDeps.replica). */
  replica?: (servedId: string | null, now: Date) => Promise<ReplicaStatus>;
  /**
   * The REST answer path (server/represent-route.ts, given by the composition root): the built
   * file, the response cache, or the body rendered and kept. POST /mcp passes the HTTP server's,
   * so a tool call and the same REST request are one answer computed one way.
   */
  represent: (request: RepresentRequest) => Promise<Buffer>;
  /**
   * The snapshot a call reads, never older than one it names (monotonic reads: the request's
   * X-Snapshot-Id, `since` of get_changes): POST /mcp waits as a REST request does. Absent (stdio),
   * the snapshot in service.
   */
  snapshotFor?: (route: RouteDefinition, params: RequestParams) => Promise<SnapshotDb>;
}

/** One request to the REST answer path: what a REST request of the same URL and caller would ask. */
export interface RepresentRequest {
  route: RouteDefinition;
  params: RequestParams;
  /** The REST URL of the same request (path and query): the built file and the Link are found by it. */
  url: URL;
  db: SnapshotDb;
  keyed: boolean;
  cotHistory: boolean;
  authenticated: boolean;
}
