import { type Success, success } from '../../contract/envelope.ts';
import type { RequestParams } from '../../contract/parse-request.ts';
import type { RouteDefinition } from '../../contract/routes.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import { PAYLOADS } from './endpoints.ts';

/** When and for whom a payload is rendered. */
export interface RenderOptions {
  now: Date;
  keyed: boolean;
}

/**
 * Computes a route's payload and wraps it in the success envelope: the one path from a request
 * to a response body, used by the static build and by the server alike.
 */
export async function renderPayload(
  db: SnapshotDb,
  route: RouteDefinition,
  params: RequestParams,
  options: RenderOptions,
): Promise<Success> {
  const payload = await PAYLOADS[route.id]({ db, now: options.now, keyed: options.keyed }, params);
  return success(payload, db.id, `${options.now.toISOString().slice(0, 19)}Z`);
}
