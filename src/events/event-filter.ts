import type { EventType, ReleaseEvent } from './event.ts';
import { matchesSeries } from './series-pattern.ts';

/** What a caller may see of the log (the same rule as /api/v1/changes). */
export interface EventView {
  /** The caller's key holds observations:read (the route's scope). */
  keyed: boolean;
  /** The key also holds cot:history. */
  cotHistory: boolean;
}

/** The filters of /api/v1/events, as validated (comma-separated lists). */
export interface EventFilters {
  source?: string;
  series?: string;
  type?: string;
}

/**
 * Whether a caller sees an event: public events for everyone; the others for a key holding every
 * scope the event names (observations:read by default; cot:history for old COT reports).
 */
export function maySee(event: ReleaseEvent, view: EventView): boolean {
  if (event.public) return true;
  if (!view.keyed) return false;
  return (event.scopes ?? ['observations:read']).every(
    (scope) => scope === 'observations:read' || (scope === 'cot:history' && view.cotHistory),
  );
}

/** The test the stream and the JSON pages apply: visibility, then the filters asked for. */
export function eventFilter(filters: EventFilters, view: EventView): (event: ReleaseEvent) => boolean {
  const sources = filters.source ? new Set(filters.source.split(',')) : null;
  const types = filters.type ? new Set(filters.type.split(',') as EventType[]) : null;
  const series = filters.series ? filters.series.split(',') : null;
  return (event) =>
    maySee(event, view) &&
    (sources === null || sources.has(event.source)) &&
    (types === null || types.has(event.type)) &&
    (series === null || matchesSeries(series, event));
}
