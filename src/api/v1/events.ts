import { ApiError } from '../../contract/errors.ts';
import type { RequestParams } from '../../contract/parse-request.ts';
import { EVENTS_PAGE_DEFAULT } from '../../contract/schemas/events.ts';
import { type EventFilters, type EventView, eventFilter } from '../../events/event-filter.ts';
import { EventGoneError, type EventLog, openEventLog } from '../../events/event-log.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import type { PayloadFunction } from './context.ts';

/** The log as the snapshot in service sees it: the chain of snapshots ending at it. */
export function eventLogOf(db: SnapshotDb): EventLog {
  return openEventLog(db.layout, { head: () => db.id });
}

/** The filters of a request (validated by the route's params). */
export function filtersOf(params: RequestParams): EventFilters {
  const { source, series, type } = params.query as Record<string, string | undefined>;
  return { source, series, type };
}

/**
 * 410 for an event id the log does not hold (older than the oldest snapshot kept, or never an
 * id): the client catches up with the change feed since the oldest snapshot kept, then reads on.
 */
export function eventsGone(error: EventGoneError): ApiError {
  const changes = error.oldest ? `/api/v1/changes?since=${error.oldest}` : '/api/v1/changes';
  return new ApiError(
    'gone',
    `${error.message}; catch up with ${changes}, then read the events from the oldest kept (no after) or from now`,
    { headers: { Link: `<${changes}>; rel="alternate"` } },
  );
}

/**
 * Endpoint 24 without the stream header: a page of the event log after `after` (the oldest
 * event kept when absent), with the events the caller may see that match the filters.
 */
export const getEvents: PayloadFunction = async ({ db, keyed, cotHistory = false }, params) => {
  const view: EventView = { keyed, cotHistory };
  const log = eventLogOf(db);
  const after = (params.query.after as string | undefined) ?? null;
  const limit = Number(params.query.limit ?? EVENTS_PAGE_DEFAULT);
  let page: Awaited<ReturnType<EventLog['read']>>;
  try {
    page = await log.read(after, limit, eventFilter(filtersOf(params), view));
  } catch (error) {
    if (error instanceof EventGoneError) throw eventsGone(error);
    throw error;
  }
  return {
    data: page.events,
    meta: {
      view: keyed ? 'keyed' : 'public',
      after,
      next_after: page.next_after,
      oldest_snapshot: log.snapshots()[0] ?? null,
      limit,
    },
  };
};
