import { createHash } from 'node:crypto';
import { renderPayload } from '../api/v1/render.ts';
import type { Caller } from '../contract/authorise.ts';
import { unavailable } from '../contract/errors.ts';
import { cacheControlFor } from '../contract/header-rules.ts';
import { ROUTES } from '../contract/routes.ts';
import { renderStatusPage } from '../site/status-page.ts';
import type { HandlerDeps } from './handler-deps.ts';
import { compressBody, respondWith } from './http-response.ts';
import type { ResponseHeaders } from './response-headers.ts';

const STATUS_ROUTE = ROUTES.find((route) => route.id === 'status')!;

/**
 * The status page is rendered live, from the same payload as /api/v1/status, by the same
 * function the build uses for its static copy (docs/site.md says why there is no Node adapter).
 */
export async function serveStatusPage(
  request: Request,
  headers: ResponseHeaders,
  deps: HandlerDeps,
  caller: Caller | null,
): Promise<Response> {
  const db = deps.snapshots.current();
  if (!db) throw unavailable('no snapshot has been published yet', 30);
  headers.set('X-Snapshot-Id', db.id);
  const release = db.lease();
  const now = deps.now();
  let envelope: Awaited<ReturnType<typeof renderPayload>>;
  try {
    const replica = deps.replica ? await deps.replica(db.id, now) : null;
    envelope = await renderPayload(
      db,
      STATUS_ROUTE,
      { slug: null, query: {}, keyedParams: [] },
      { now, keyed: false, replica },
    );
  } finally {
    release();
  }
  const body = Buffer.from(
    renderStatusPage(envelope as Parameters<typeof renderStatusPage>[0], { live: true }),
  );
  headers.set('Cache-Control', cacheControlFor(STATUS_ROUTE.maxAge, caller !== null));
  return respondWith(
    request,
    {
      body,
      ...compressBody(body),
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`,
      contentType: 'text/html; charset=utf-8',
    },
    headers,
  );
}
