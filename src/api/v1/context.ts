import type { Payload } from '../../contract/envelope.ts';
import type { RequestParams } from '../../contract/parse-request.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import type { ReplicaStatus } from '../../store/object-store/follow-store.ts';

/** What a payload function gets besides the parameters. */
export interface ApiContext {
  db: SnapshotDb;
  /** The request time; the build time for pre-rendered files. */
  now: Date;
  /** The caller holds the route's scope (full history on endpoint 3). */
  keyed: boolean;
  /**
   * The caller holds cot:history: COT reports older than the public window (query/cot.ts
   * PUBLIC_COT_REPORTS) are for it alone, on every route (docs/keys.md). Absent: false.
   */
  cotHistory?: boolean;
  /**
   * The request carried a valid key (whatever its scopes): a payload that finds it needs a scope
   * the route's access rule could not foresee answers 403 to a key and 401 without one. Absent: false.
   */
  authenticated?: boolean;
  /**
   * Where an instance following a bucket (`mmds serve --from`) stands against the bucket's log;
   * null or absent elsewhere (a server on its own data directory, the static build).
   */
  replica?: ReplicaStatus | null;
}

/** Computes one endpoint's `{data, meta}`; shared by the static build and the server. */
export type PayloadFunction = (context: ApiContext, params: RequestParams) => Promise<Payload>;
