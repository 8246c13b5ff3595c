import type { EventFeed } from '../events/event.ts';
import { resolveLayout, type StoreLayout } from '../store/layout.ts';

/**
 * The event log of a data directory, as the deliverer reads it: `openEventLog` of
 * src/events/event-log.ts (issue 24 item 1: each snapshot's events.ndjson along the chain of kept
 * snapshots, head CURRENT). That module was written beside this one, on another branch; it is
 * loaded by name so that this part builds on its own.
 * TODO(merge): replace the dynamic import by `import { openEventLog } from '../events/event-log.ts'`.
 */
export async function openStoreEventFeed(dataDir: string): Promise<EventFeed> {
  const modulePath = '../events/event-log.ts';
  let module: { openEventLog?: (layout: StoreLayout) => EventFeed };
  try {
    module = (await import(modulePath)) as typeof module;
  } catch (error) {
    throw new Error('this build of mmds has no release event log (src/events/event-log.ts)', {
      cause: error,
    });
  }
  if (typeof module.openEventLog !== 'function')
    throw new Error('src/events/event-log.ts has no openEventLog');
  return module.openEventLog(resolveLayout(dataDir));
}
