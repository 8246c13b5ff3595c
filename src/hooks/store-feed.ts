import type { EventFeed } from '../events/event.ts';
import { openEventLog } from '../events/event-log.ts';
import { resolveLayout } from '../store/layout.ts';

/**
 * The event log of a data directory, as the deliverer reads it (src/events/event-log.ts: each
 * snapshot's events.ndjson along the chain of kept snapshots, head CURRENT).
 */
export async function openStoreEventFeed(dataDir: string): Promise<EventFeed> {
  return openEventLog(resolveLayout(dataDir));
}
