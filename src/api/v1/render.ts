import { type Success, success } from '../../contract/envelope.ts';
import { parseRequest, type RequestParams } from '../../contract/parse-request.ts';
import type { RouteDefinition } from '../../contract/routes.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import type { ReplicaStatus } from '../../store/object-store/follow-store.ts';
import { renderCsv } from './csv.ts';
import { csvColumnsOf } from './csv-columns.ts';
import { PAYLOADS } from './endpoints.ts';
import { keepsColumn } from './field-selection.ts';
import { renderReleasesIcs } from './releases-ics.ts';
import {
  bytesEtag,
  canonicalParams,
  etagIsOfBytes,
  identityEtag,
  PUBLIC_VIEW,
  snapshotContent,
} from './resource-etag.ts';
import type { StaticRequest } from './static-requests.ts';

/** When and for whom a payload is rendered. */
export interface RenderOptions {
  now: Date;
  keyed: boolean;
  /** The caller holds cot:history (ApiContext.cotHistory). */
  cotHistory?: boolean;
  /** ApiContext.authenticated. */
  authenticated?: boolean;
  /** ApiContext.replica (status only). */
  replica?: ReplicaStatus | null;
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
  const payload = await PAYLOADS[route.id](
    {
      db,
      now: options.now,
      keyed: options.keyed,
      cotHistory: options.cotHistory === true,
      authenticated: options.authenticated === true,
      replica: options.replica ?? null,
    },
    params,
  );
  return success(payload, db.id, generatedAtOf(options.now));
}

/** meta.generated_at of a body rendered at `now`: RFC 3339 to the second. */
export function generatedAtOf(now: Date): string {
  return `${now.toISOString().slice(0, 19)}Z`;
}

/** A file the static build writes for a public request: its body and its ETag. */
export interface StaticFile {
  body: string;
  /** The ETag the server gives the same request (resource-etag.ts), not a hash of the file. */
  etag: string;
}

/**
 * The file the static build writes for a public request: the JSON envelope, or for a
 * `format=csv` request (endpoint 15) the payload's `data` as CSV, as the server renders it; with
 * the ETag the server gives the same request in the public view of the same snapshot.
 */
export async function renderStaticFile(
  db: SnapshotDb,
  request: StaticRequest,
  now: Date,
): Promise<StaticFile> {
  // The request as the server reads it from its URL, so that its identity is spelled the same.
  const params = parseRequest(
    request.route,
    request.slug,
    new URLSearchParams(request.query as Record<string, string>),
  );
  const envelope = await renderPayload(db, request.route, params, { now, keyed: false });
  const csv = request.query.format === 'csv';
  const body =
    request.route.mediaType === 'text/calendar'
      ? renderReleasesIcs(envelope)
      : csv
        ? renderDataCsv(request.route, envelope)
        : JSON.stringify(envelope);
  const etag = etagIsOfBytes(request.route)
    ? bytesEtag(csv || request.route.mediaType ? body : (JSON.stringify(envelope.data) ?? 'null'), db.id)
    : identityEtag(
        request.route,
        await canonicalParams(db, request.route, params),
        PUBLIC_VIEW,
        snapshotContent(db.id),
      );
  return { body, etag };
}

/**
 * The `data` of an envelope as CSV: with its header row even when there are no rows (of the
 * selected `fields` only, when the rows were selected: field-selection.ts).
 */
export function renderDataCsv(
  route: RouteDefinition,
  envelope: Success,
  fields: ReadonlySet<string> | null = null,
): string {
  const columns = csvColumnsOf(route.id, envelope.meta as Record<string, unknown>);
  return renderCsv(
    envelope.data as unknown[],
    fields === null ? columns : columns.filter((column) => keepsColumn(column, fields)),
  );
}
