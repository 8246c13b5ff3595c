import { existsSync } from 'node:fs';
import { MmdsError } from '../lib/errors.ts';
import { type StoreLayout, snapshotDir } from '../store/layout.ts';
import { readCurrentId, readManifest, type SnapshotManifest } from '../store/manifest.ts';
import type { EventFeed, ReleaseEvent } from './event.ts';
import { readEventFile } from './event-file.ts';
import { readNoticedEvents } from './noticed-events.ts';

/** An event id (or a position `<snapshot id>:0`) the log does not hold: pruned, or never one of its ids. */
export class EventGoneError extends MmdsError {
  /** The oldest snapshot the log still holds (a client catches up with /changes since it), or null. */
  readonly oldest: string | null;

  constructor(message: string, oldest: string | null) {
    super('event_gone', message);
    this.name = 'EventGoneError';
    this.oldest = oldest;
  }
}

/** A page of the log read with a filter. */
export interface EventPage {
  events: ReleaseEvent[];
  /**
   * Where the next read starts: the id of the last event looked at (filtered out or not), or the
   * position read from when nothing was looked at; `<snapshot id>:0` names a snapshot's start.
   */
  next_after: string | null;
}

/** The event log: the events of the chain of snapshots from the oldest kept to the head. */
export interface EventLog extends EventFeed {
  /** The events after `after` that `accept` takes, at most `limit`, looking at no more than the log holds. */
  read(after: string | null, limit: number, accept?: (event: ReleaseEvent) => boolean): Promise<EventPage>;
  /** The position after the head's last event (a new stream starts there), or null before any snapshot. */
  end(): string | null;
  /** The snapshot ids of the log, oldest first. */
  snapshots(): string[];
}

/** Events read per step by readAllAfter. */
const CATCH_UP_PAGE = 1000;

/**
 * Every event after `after` that `accept` takes, read a page at a time, and the position the next
 * read starts at (the last event looked at). Throws EventGoneError as EventLog.read does.
 */
export async function readAllAfter(
  log: EventLog,
  after: string | null,
  accept?: (event: ReleaseEvent) => boolean,
): Promise<{ events: ReleaseEvent[]; next_after: string | null }> {
  const events: ReleaseEvent[] = [];
  let position = after;
  for (;;) {
    const page = await log.read(position, CATCH_UP_PAGE, accept);
    events.push(...page.events);
    const moved = page.next_after !== position;
    position = page.next_after;
    if (!moved) return { events, next_after: position };
  }
}

/** Options of openEventLog. */
export interface EventLogOptions {
  /** The newest snapshot of the log: the server's snapshot in service. Default: CURRENT. */
  head?: () => string | null;
  /**
   * A number that changes whenever the log may have grown other than by a new head (the server's
   * streams: after each check for delayed releases). While it and the head stay the same, for at
   * most MEMO_MS, the chain of snapshots and their noticed events are read once, not on every
   * read: a release reaches a thousand streams with one look at the files. Without it every read
   * looks at the files.
   */
  generation?: () => number;
}

/** The longest a chain and its noticed events are kept for reads of one head and generation. */
const MEMO_MS = 1000;

/** Snapshots whose events are kept parsed in memory (files are immutable: never stale). */
const MAX_CACHED_SNAPSHOTS = 64;
/** The parsed events of a snapshot, by its directory, shared by every log of the process. */
const EVENTS = new Map<string, ReleaseEvent[]>();

/**
 * Opens the log over a store. A snapshot's events are its `events.ndjson` (written by publish
 * into the snapshot, so kept exactly as long as it); the log follows the parent links from the
 * head back to the oldest snapshot still present, each followed by the events noticed while it
 * was current (noticed-events.ts: release.delayed). Ids are `<snapshot id>:<seq>` with seq from 1.
 */
export function openEventLog(layout: StoreLayout, options: EventLogOptions = {}): EventLog {
  const head = options.head ?? (() => readCurrentId(layout));
  const manifests = new Map<string, SnapshotManifest | null>();

  const manifestOf = (id: string): SnapshotManifest | null => {
    // Cached manifests are still checked for presence: a pruned snapshot leaves the log.
    if (manifests.has(id)) return existsSync(snapshotDir(layout, id)) ? manifests.get(id)! : null;
    let manifest: SnapshotManifest | null = null;
    try {
      manifest = readManifest(layout, id);
    } catch {
      // Pruned (or never there): the chain ends here.
      return null;
    }
    manifests.set(id, manifest);
    while (manifests.size > MAX_CACHED_SNAPSHOTS) manifests.delete(manifests.keys().next().value!);
    return manifest;
  };

  /** What reads of one head and generation share (EventLogOptions.generation). */
  let memo: {
    head: string | null;
    generation: number;
    until: number;
    chain: string[];
    events: Map<string, ReleaseEvent[]>;
  } | null = null;
  const memoFor = (id: string | null) => {
    if (!options.generation) return null;
    const generation = options.generation();
    const now = Date.now();
    if (memo?.head !== id || memo.generation !== generation || now > memo.until)
      memo = { head: id, generation, until: now + MEMO_MS, chain: chainTo(id), events: new Map() };
    return memo;
  };

  /** A snapshot's own events (immutable, cached), then those noticed while it was current. */
  const eventsOf = (id: string): ReleaseEvent[] => {
    return memo?.events.get(id) ?? freshEventsOf(id);
  };
  /** A snapshot's events read from the files now, the memo updated. */
  const freshEventsOf = (id: string): ReleaseEvent[] => {
    const all = lookUpEventsOf(id);
    memo?.events.set(id, all);
    return all;
  };
  const lookUpEventsOf = (id: string): ReleaseEvent[] => {
    const own = ownEventsOf(id);
    const noticed = readNoticedEvents(layout, id);
    return noticed.length === 0 ? own : own.concat(noticed);
  };

  const ownEventsOf = (id: string): ReleaseEvent[] => {
    const dir = snapshotDir(layout, id);
    const cached = EVENTS.get(dir);
    if (cached) return cached;
    const manifest = manifestOf(id);
    if (!manifest) return [];
    const events = readEventFile(dir, manifest.events);
    EVENTS.set(dir, events);
    while (EVENTS.size > MAX_CACHED_SNAPSHOTS) EVENTS.delete(EVENTS.keys().next().value!);
    return events;
  };

  /** The chain from the oldest snapshot present to `id`, oldest first. */
  const chainTo = (id: string | null): string[] => {
    const out: string[] = [];
    for (let at = id; at !== null && !out.includes(at); ) {
      const manifest = manifestOf(at);
      if (!manifest) break;
      out.push(at);
      at = manifest.parent;
    }
    return out.reverse();
  };

  const read: EventLog['read'] = async (after, limit, accept = () => true) => {
    const id = head();
    const chain = memoFor(id)?.chain ?? chainTo(id);
    if (chain.length === 0) return { events: [], next_after: after };
    let start = 0;
    let seq = 0;
    if (after !== null) {
      const match = /^(.+):(\d{1,9})$/.exec(after);
      const snapshot = match?.[1] ?? '';
      seq = Number(match?.[2] ?? -1);
      start = chain.indexOf(snapshot);
      if (start < 0) {
        // A snapshot published after the head (another instance switched first): nothing yet.
        const ahead = manifestOf(snapshot);
        const newest = manifestOf(chain.at(-1)!)!;
        if (ahead && ahead.created_at >= newest.created_at && ahead.id !== newest.id)
          return { events: [], next_after: after };
        throw new EventGoneError(
          `event ${after} is not in the log: the log starts at snapshot ${chain[0]} (older snapshots are pruned)`,
          chain[0]!,
        );
      }
      // Before a 410, a look at the files: an event noticed since the memo was made (noticed-events.ts).
      if (seq > eventsOf(snapshot).length && seq > freshEventsOf(snapshot).length)
        throw new EventGoneError(`event ${after} is not an event of the log`, chain[0]!);
    }
    const events: ReleaseEvent[] = [];
    let next = after;
    for (let index = start; index < chain.length && events.length < limit; index++) {
      const all = eventsOf(chain[index]!);
      for (let at = index === start ? seq : 0; at < all.length && events.length < limit; at++) {
        const event = all[at]!;
        next = event.id;
        if (accept(event)) events.push(event);
      }
      if (all.length === 0 || index === chain.length - 1) next ??= `${chain[index]}:0`;
    }
    return { events, next_after: next };
  };

  return {
    read,
    after: async (after, limit) => (await read(after, limit)).events,
    end() {
      const id = head();
      if (id === null) return null;
      memoFor(id);
      return `${id}:${eventsOf(id).length}`;
    },
    snapshots: () => {
      const id = head();
      return memoFor(id)?.chain ?? chainTo(id);
    },
  };
}
