import { renderReleasesIcs } from '../../src/api/v1/releases-ics.ts';
import { renderDataCsv, renderPayload } from '../../src/api/v1/render.ts';
import type { RequestParams } from '../../src/contract/parse-request.ts';
import type { RouteDefinition } from '../../src/contract/routes.ts';
import type { SnapshotDb } from '../../src/query/snapshot-db.ts';

/**
 * The body the server rendered for an endpoint request before a page became bytes (issue 33),
 * kept here only as the reference of the differential test
 * (test/integration/api/representation-bytes.test.ts): every payload computed as objects by
 * renderPayload, then the JSON envelope by JSON.stringify, the CSV by renderDataCsv, the
 * calendar by renderReleasesIcs. What it returns is what a client received: body, media type and
 * the next page's Link.
 */
export interface OldAnswer {
  body: Buffer;
  contentType: string;
  link: string | null;
}

/** Renders one request as the server of commit 257d9f0 did (represent-route.ts, before the cache). */
export async function renderTheOldWay(
  route: RouteDefinition,
  params: RequestParams,
  url: URL,
  db: SnapshotDb,
  view: { keyed: boolean; cotHistory: boolean },
  now: Date,
): Promise<OldAnswer> {
  const envelope = await renderPayload(db, route, params, { now, ...view, replica: null });
  if (route.mediaType === 'text/calendar')
    return {
      body: Buffer.from(renderReleasesIcs(envelope)),
      contentType: `${route.mediaType}; charset=utf-8`,
      link: null,
    };
  const csv = params.query.format === 'csv';
  const data = csv ? '' : (JSON.stringify(envelope.data) ?? 'null');
  const body = Buffer.from(
    csv ? renderDataCsv(route, envelope) : `{"data":${data},"meta":${JSON.stringify(envelope.meta)}}`,
  );
  return {
    body,
    contentType: csv ? 'text/csv; charset=utf-8; header=present' : 'application/json; charset=utf-8',
    link: oldNextLink(url, envelope.meta.next_cursor),
  };
}

function oldNextLink(url: URL, cursor: unknown): string | null {
  if (typeof cursor !== 'string') return null;
  const next = new URL(url.pathname, url);
  for (const [name, value] of url.searchParams) if (name !== 'cursor') next.searchParams.set(name, value);
  next.searchParams.set('cursor', cursor);
  return `<${next.pathname}${next.search}>; rel="next"`;
}
