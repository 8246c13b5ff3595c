/**
 * The routes of what changed between snapshots: endpoint 22, the change feed for incremental sync
 * (docs/api/changes.md), and 24, the release event log as Server-Sent Events or JSON pages
 * (docs/api/events.md).
 */
import { PUBLIC_FORMAT } from './params.ts';
import type { RouteDefinition } from './route-definition.ts';
import { EVENTS_PARAMS } from './schemas/events.ts';

/** Endpoints 22 and 24, in the order of the route table. */
export const FEED_ROUTES: readonly RouteDefinition[] = [
  {
    id: 'changes',
    number: 22,
    path: '/api/v1/changes',
    summary: 'Change feed: the series and markets whose data changed since a snapshot',
    description:
      'Per series (observations) and COT market report series whose data changed from snapshot `since` to the ' +
      'one in service: new_observations (periods `since` had no value for), revisions (periods whose value in ' +
      'force is a newer revision), backfilled (periods that only gained older revisions: as_of answers ' +
      'change) and the periods touched; meta.reference_tables lists the reference and catalog lists that ' +
      'changed. Without a key: redistributable sources only (public domain, open licence); with a key ' +
      'holding observations:read: every source. A COT entry counts only the reports of the public window ' +
      '(the 12 most recent per market and report type) unless the key holds cot:history. One entry per changed series or market, never more than ' +
      'the catalog holds, so no paging. since = the current id answers no changes. Not pre-rendered: the ' +
      'server answers it (static hosts proxy it). Incremental sync: docs/api/changes.md.',
    access: { kind: 'public-or-scope', scope: 'observations:read' },
    query: ['since', 'format', 'fields'],
    maxAge: 60,
    prerender: 'none',
    // The feed is public in CSV too: no key for format here.
    params: {
      format: PUBLIC_FORMAT,
    },
  },
  {
    id: 'events',
    number: 24,
    path: '/api/v1/events',
    summary: 'Release events: what each publish released and revised, as a stream or JSON pages',
    description:
      "The event log (docs/api/events.md): per snapshot, `release.published` (a source's release landed), " +
      '`series.released` (new periods of a series) and `series.revised` (changed values: period, old and new ' +
      'value, knowledge times; links pinned by as_of when many), and between snapshots `release.delayed` (an ' +
      'expected release that has not landed), ids `<snapshot id>:<seq>`, kept as long as ' +
      'the snapshot. With `Accept: text/event-stream`: Server-Sent Events (`id:` the event id, `event:` the ' +
      'type, `data:` the event as JSON), a comment every 15 s, new events as the server switches snapshot; ' +
      'resume with the `Last-Event-ID` header or `after` on any instance. Without it: JSON pages of `limit` ' +
      'events, continued with after = meta.next_after. An id older than the log or unknown is 410 (catch up ' +
      'with /api/v1/changes). Without a key: public events only (redistributable sources; COT reports in ' +
      'the public window); a key with observations:read also gets licensed sources, with cot:history older ' +
      'COT reports. Open streams are limited per key, per client address and per instance (429 past it); a ' +
      'stream ends at once when its key is revoked or expires, and one whose client stops reading is cut.',
    access: { kind: 'public-or-scope', scope: 'observations:read' },
    query: ['after', 'limit', 'source', 'series', 'type'],
    maxAge: 5,
    prerender: 'none',
    params: EVENTS_PARAMS,
  },
];
