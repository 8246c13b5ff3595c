/**
 * ALFRED's real-time views of one series computed from its revision records (docs/api/vintages.md).
 * A record is in force from its vintage date, the day of its knowledge time in St. Louis
 * (REALTIME_ZONE: ALFRED's days), to the day before the next record of its period (9999-12-31 for
 * the latest); a record superseded on its own day was never in force at the end of a day and has
 * no real-time period. Plain functions over (period, revision)-ordered records.
 */

import { addDays, localWallTime } from '../lib/zoned-time.ts';
import { REALTIME_MAX, REALTIME_ZONE } from '../model/realtime.ts';
import type { VintageRecord } from './vintages.ts';

/** One value with the real-time period it was in force (ALFRED output_type 1). */
export interface RealtimeRow {
  period: string;
  value: number | null;
  realtime_start: string;
  realtime_end: string;
}

/** A record with its real-time period (before any clipping). */
interface Spell {
  period: string;
  value: number;
  start: string;
  end: string;
  first: boolean;
}

/** The day of an instant in ALFRED's zone. */
export function realtimeDay(instant: string): string {
  return localWallTime(instant, REALTIME_ZONE).slice(0, 10);
}

/** Every record's real-time period, in (period, start) order; empty periods (same-day supersession) dropped. */
function spellsOf(records: readonly VintageRecord[]): Spell[] {
  const spells: Spell[] = [];
  records.forEach((record, i) => {
    const next = records[i + 1];
    const start = realtimeDay(record.observed_at);
    const end =
      next && next.period === record.period ? addDays(realtimeDay(next.observed_at), -1) : REALTIME_MAX;
    if (end < start) return;
    // The first kept record of its period: a first release revised the same day is first known revised.
    const first = spells.at(-1)?.period !== record.period;
    spells.push({ period: record.period, value: record.value, start, end, first });
  });
  return spells;
}

/** output_type 1: every value in force some day of [start, end], its real-time period clipped to it. */
export function valuesByRealtime(
  records: readonly VintageRecord[],
  start: string,
  end: string,
): RealtimeRow[] {
  return spellsOf(records)
    .filter((spell) => spell.start <= end && spell.end >= start)
    .map((spell) => ({
      period: spell.period,
      value: spell.value,
      realtime_start: spell.start > start ? spell.start : start,
      realtime_end: spell.end < end ? spell.end : end,
    }));
}

/** output_type 4: the first release of each period first released within [start, end], with its real-time period. */
export function initialReleases(
  records: readonly VintageRecord[],
  start: string,
  end: string,
): RealtimeRow[] {
  return spellsOf(records)
    .filter((spell) => spell.first && spell.start >= start && spell.start <= end)
    .map((spell) => ({
      period: spell.period,
      value: spell.value,
      realtime_start: spell.start,
      realtime_end: spell.end,
    }));
}

/** The vintage dates of the records (the days a value was released or revised), oldest first. */
export function vintageDays(records: readonly VintageRecord[]): Array<{ day: string; observed_at: string }> {
  const latest = new Map<string, string>();
  for (const record of records) {
    const day = realtimeDay(record.observed_at);
    const seen = latest.get(day);
    if (seen === undefined || Date.parse(record.observed_at) > Date.parse(seen))
      latest.set(day, record.observed_at);
  }
  return [...latest]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([day, observed_at]) => ({ day, observed_at }));
}

/**
 * output_types 2 and 3: each period at each of the days, the value in force at the end of that day
 * (null before the period was known), as ALFRED's wide table in long form (one row per period and
 * day, realtime_start = realtime_end = the day). `changedOnly` (3): only the cells whose value is
 * new or differs from the previous day's; the other cells are left out.
 */
export function valuesByVintage(
  records: readonly VintageRecord[],
  days: readonly string[],
  changedOnly: boolean,
): RealtimeRow[] {
  const byPeriod = new Map<string, Spell[]>();
  for (const spell of spellsOf(records)) {
    const spells = byPeriod.get(spell.period) ?? [];
    spells.push(spell);
    byPeriod.set(spell.period, spells);
  }
  const rows: RealtimeRow[] = [];
  for (const [period, spells] of byPeriod) {
    let previous: number | null = null;
    for (const day of days) {
      const value = spells.find((spell) => spell.start <= day && day <= spell.end)?.value ?? null;
      const changed = value !== null && value !== previous;
      previous = value;
      if (changedOnly && !changed) continue;
      rows.push({ period, value, realtime_start: day, realtime_end: day });
    }
  }
  return rows;
}
