/**
 * What the request handler is given by the composition root (HandlerDeps), a refused key's
 * answer and what one request resolved to; the caller a key resolves to is contract/authorise.ts's.
 */
import type { Caller } from '../contract/authorise.ts';
import type { Decision } from '../rate-limit/sliding-log.ts';
import type { StoreLayout } from '../store/layout.ts';
import type { ReplicaStatus } from '../store/object-store/follow-store.ts';
import type { EventStreams } from './event-streams.ts';
import type { KeyedAnswers } from './keyed-fast-path.ts';
import type { SnapshotWait } from './monotonic-read.ts';
import type { ResponseCache } from './response-cache.ts';
import type { SnapshotManager } from './snapshot-manager.ts';
import type { StaticSite } from './static-site.ts';

/** A refused key: what the 401 says (the same for every key whose secret was not proved). */
export interface KeyRefusal {
  refused: string;
}

/** One rate-limit decision, as the limiter returns it. */
export type LimitDecision = Decision;

/** Everything the request handler needs, injected by the composition root. */
export interface HandlerDeps {
  snapshots: SnapshotManager;
  /** How a request that names a newer snapshot waits for it (monotonic-read.ts). */
  snapshotWait: SnapshotWait;
  /** Where the snapshots are: the full store's files are read from there (serve-bulk-full.ts). */
  layout: StoreLayout;
  staticSite: () => StaticSite | null;
  /** Resolves a bearer token to a caller, or to the message of its 401 (key-refusal.ts). */
  authenticate: (token: string) => Promise<Caller | KeyRefusal>;
  consume: (bucket: string, limit: number) => Promise<LimitDecision>;
  rateLimitHeaders: (decision: LimitDecision) => Record<string, string>;
  anonymousLimit: number;
  /** The limiter bucket of an anonymous client address (IPv6 by its prefix: rateLimitSubject). */
  anonymousBucket: (clientIp: string) => string;
  cache: ResponseCache;
  /** Where keyed answers are remembered for the keyed fast path (keyed-fast-path.ts), when it runs. */
  keyedAnswers?: KeyedAnswers;
  /**
   * Whether a proxy is declared in front (MMDS_TRUSTED_PROXIES > 0): it then names the public
   * Host, and POST /mcp does not hold a loopback connection's Host to a loopback name (serve-mcp.ts).
   */
  behindProxy: boolean;
  /** The Server-Sent Event streams of /api/v1/events (event-streams.ts). */
  eventStreams: EventStreams;
  now: () => Date;
  log: (entry: Record<string, unknown>) => void;
  /** Set on an instance following a bucket: where it stands against the log (/api/v1/status). */
  replica?: (servedId: string | null, now: Date) => Promise<ReplicaStatus>;
}

/** What one request resolved to, for its log line. */
export interface RequestState {
  caller: Caller | null;
  /** The URL path (normalised), once parsed. */
  path: string | null;
  snapshot: string | null;
}
