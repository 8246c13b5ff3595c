import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  McpError,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { authorise, type Caller } from '../contract/authorise.ts';
import { parseRequest } from '../contract/parse-request.ts';
import { COT_HISTORY_SCOPE, ROUTES } from '../contract/routes.ts';
import type { EventType, ReleaseEvent } from '../events/event.ts';
import { type EventView, maySee } from '../events/event-filter.ts';
import { type EventLog, readAllAfter } from '../events/event-log.ts';
import type { SnapshotDb } from '../query/snapshot-db.ts';
import type { McpContext } from './context.ts';
import { resourceSubject, resourceUri } from './resources.ts';

/** The events that change what a series' or market's resource reads. */
const UPDATING: ReadonlySet<EventType> = new Set(['series.released', 'series.revised']);

/** Where a client that wants push over the stateless HTTP transport goes instead (docs/mcp.md). */
const PUSH_ELSEWHERE =
  'resources/subscribe is not offered by the stateless HTTP endpoint (no session outlives a request, so nothing could be pushed): ' +
  'follow GET /api/v1/events (Server-Sent Events, filter series=<key>) or register a webhook, or use mmds mcp over stdio, which offers subscriptions';

/** The resource subscriptions of one long-lived MCP session (stdio). */
export interface ResourceSubscriptions {
  /**
   * Reads the event log after the last event looked at and sends one notifications/resources/updated
   * per subscribed URI that a series.released or series.revised event the caller may see is about.
   * Call it each time the process switches to a new snapshot; calls run one after another.
   */
  update(): Promise<void>;
}

/**
 * Declares `resources.subscribe` and answers resources/subscribe and resources/unsubscribe on a
 * server whose session lasts (mmds mcp over stdio), fed from the release event log: the same
 * log and the same rights rule (maySee) as GET /api/v1/events. Call before connecting.
 */
export function offerSubscriptions(
  server: McpServer,
  context: McpContext,
  log: EventLog,
): ResourceSubscriptions {
  const subscribed = new Set<string>();
  // Events from now on: a client learns of changes after it subscribed, not of the log's past.
  let position = log.end();
  let running: Promise<void> = Promise.resolve();

  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const { uri } = request.params;
    await checkSubscribable(uri, context);
    subscribed.add(uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });

  const notify = async () => {
    const start = position;
    if (subscribed.size === 0) {
      position = log.end();
      return;
    }
    const caller = await context.caller().catch((error: Error) => {
      // A key revoked or expired meanwhile: nothing is sent (its tool calls are refused too).
      context.log({ event: 'mcp_subscription_skipped', reason: error.message });
      return undefined;
    });
    const view = caller === undefined ? null : eventViewOf(caller);
    const { events, next_after } = await readAllAfter(
      log,
      start,
      (event) => view !== null && UPDATING.has(event.type) && maySee(event, view),
    );
    position = next_after;
    if (next_after === start) return;
    const db = context.snapshot();
    const uris = events.length > 0 && db ? await urisOf(events, db) : [];
    const sent: string[] = [];
    for (const uri of uris)
      if (subscribed.has(uri)) {
        await server.server.sendResourceUpdated({ uri });
        sent.push(uri);
      }
    context.log({ event: 'mcp_resources_updated', snapshot: db?.id ?? null, after: start, uris: sent });
  };

  return {
    update() {
      running = running.then(notify).catch((error: Error) => {
        // The log lost the position (pruned meanwhile): go on from its end.
        context.log({ event: 'mcp_subscription_error', error: error.message });
        position = log.end();
      });
      return running;
    },
  };
}

const EVENTS_ROUTE = ROUTES.find((route) => route.id === 'events')!;

/** What a caller sees of the event log: the view GET /api/v1/events gives the same caller. */
function eventViewOf(caller: Caller | null): EventView {
  const params = parseRequest(EVENTS_ROUTE, null, new URLSearchParams());
  return {
    keyed: authorise(EVENTS_ROUTE, params, caller, false),
    cotHistory: caller?.scopes.includes(COT_HISTORY_SCOPE) ?? false,
  };
}

/**
 * Answers resources/subscribe over a transport without a session (POST /mcp): method not found,
 * as for any capability a server does not declare, with where push is offered instead.
 */
export function refuseSubscriptions(server: McpServer): void {
  for (const schema of [SubscribeRequestSchema, UnsubscribeRequestSchema])
    server.server.setRequestHandler(schema, () => {
      throw new McpError(ErrorCode.MethodNotFound, PUSH_ELSEWHERE);
    });
}

/**
 * A URI may be subscribed to when it names a series of the catalogue or a COT market of the
 * snapshot in service, whether or not the caller may read it now (a key's scopes decide what is
 * notified); anything else is invalid params, as the MCP specification says of resources/subscribe.
 */
async function checkSubscribable(uri: string, context: McpContext): Promise<void> {
  const subject = resourceSubject(uri);
  const db = context.snapshot();
  let known = false;
  if (subject !== null && db !== null) {
    const release = db.lease();
    try {
      const table = subject.kind === 'series' ? 'series' : 'cot_markets';
      known =
        (await db.query(`SELECT slug FROM ${table} WHERE slug = $slug`, { slug: subject.slug })).length > 0;
    } finally {
      release();
    }
  }
  if (!known)
    throw new McpError(
      ErrorCode.InvalidParams,
      `${uri.slice(0, 200)} is not a resource of this server: subscribe to mmds://series/<slug> (a series of list_series) or mmds://markets/<slug> (a market of get_cot_summary)`,
      { uri: uri.slice(0, 200) },
    );
}

/** The resource URIs the events are about, each once, in the order of the events. */
async function urisOf(events: ReleaseEvent[], db: SnapshotDb): Promise<string[]> {
  const release = db.lease();
  try {
    const [series, markets] = await Promise.all([
      db.query<{ key: string; slug: string }>('SELECT key, slug FROM series'),
      db.query<{ code: string; slug: string }>('SELECT code, slug FROM cot_markets'),
    ]);
    const seriesSlug = new Map(series.map((row) => [row.key, row.slug]));
    const marketSlug = new Map(markets.map((row) => [row.code, row.slug]));
    const uris = new Set<string>();
    for (const event of events) {
      const market =
        event.data.kind === 'market' ? marketSlug.get(String(event.data.market_code)) : undefined;
      const slug = event.series === null ? undefined : seriesSlug.get(event.series);
      if (market !== undefined) uris.add(resourceUri('market', market));
      else if (slug !== undefined) uris.add(resourceUri('series', slug));
    }
    return [...uris];
  } finally {
    release();
  }
}
