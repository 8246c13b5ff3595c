import type { Payload } from '../../contract/envelope.ts';
import type { RequestParams } from '../../contract/parse-request.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';

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
}

/** Computes one endpoint's `{data, meta}`; shared by the static build and the server. */
export type PayloadFunction = (context: ApiContext, params: RequestParams) => Promise<Payload>;
