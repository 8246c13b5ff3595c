import type { DuckDBConnection } from '@duckdb/node-api';
import {
  CLOCK_SKEW_SECONDS,
  latestAcceptedTime,
  provenRelease,
  releaseGroupSql,
} from '../calendar/fact-release.ts';
import type { Calendars } from '../calendar/types.ts';
import { readRows } from '../db/duckdb.ts';
import { formatTimestamp } from '../lib/zoned-time.ts';
import {
  type FactRows,
  isFactRelation,
  type KnowledgeTime,
  type ParsedBatch,
  type Timestamp,
} from '../model/records.ts';
import { RevisionRefusedError } from '../model/revision-refused.ts';

const SHOWN = 5;

/** Why an operator-given time (a flag such as --collected-at) is in the future, or null. */
export function futureTimeProblem(flag: string, value: Timestamp, now: Date): string | null {
  if (Date.parse(value) <= Date.parse(latestAcceptedTime(now))) return null;
  return (
    `${flag} ${value} is in the future (the clock says ${formatTimestamp(now)}, ` +
    `allowing ${CLOCK_SKEW_SECONDS / 60} minutes of clock skew): nothing can have been known then`
  );
}

/** The earliest and latest knowledge times of the facts of one release group and period. */
interface GroupTimes {
  series_key: string;
  period: string;
  /** The earliest time the facts say they were known, and how. */
  earliest: KnowledgeTime;
  /** The earliest correction time among them, if any. */
  earliest_correction: Timestamp | null;
  /** The latest of every knowledge and correction time. */
  latest: Timestamp;
}

/**
 * Refuses a parsed batch in which any fact would be known before the world could know it or in
 * the future: a knowledge time (or the time it would take as a correction) before the proven
 * release of its (series, period) by the calendars (src/calendar/fact-release.ts), or later than
 * `now` plus the clock-skew allowance. This covers every operator-given time (--collected-at,
 * --observed-at, --vintage, a plan's fields) whatever the parser made of it. Throws a
 * RevisionRefusedError naming the first few facts and their release; nothing is written.
 */
export async function assertKnowledgeBounds(
  connection: DuckDBConnection,
  batch: ParsedBatch,
  calendars: Calendars,
  now: Date,
): Promise<void> {
  const limit = latestAcceptedTime(now);
  for (const table of ['observations', 'cot_reports'] as const) {
    const rows = batch[table];
    if (rows === undefined) continue;
    const groups = await readGroupTimes(connection, rows);
    const reasons: string[] = [];
    for (const group of groups) {
      const reason = boundsProblem(group, calendars, limit, now);
      if (reason !== null) reasons.push(reason);
    }
    if (reasons.length > 0) throw new RevisionRefusedError(table, reasons.slice(0, SHOWN), reasons.length);
  }
}

function boundsProblem(group: GroupTimes, calendars: Calendars, limit: Timestamp, now: Date): string | null {
  const what = `${group.series_key} ${group.period}`;
  if (group.latest > limit) {
    return (
      `${what}: knowledge time ${group.latest} is in the future (the clock says ${formatTimestamp(now)}, ` +
      `allowing ${CLOCK_SKEW_SECONDS / 60} minutes of clock skew)`
    );
  }
  const release = provenRelease(group.series_key, group.period, calendars);
  if (release === null) return null;
  const early =
    group.earliest.observed_at < release.observed_at
      ? `knowledge time ${group.earliest.observed_at} (${group.earliest.method})`
      : group.earliest_correction !== null && group.earliest_correction < release.observed_at
        ? `correction time ${group.earliest_correction} (from the collection time)`
        : null;
  if (early === null) return null;
  return (
    `${what}: ${early} is before its release at ${release.observed_at}, so a file could not hold it ` +
    'then; check --collected-at, --observed-at or --vintage'
  );
}

/** One row per release group and period; RFC 3339 UTC text sorts as the instants do. */
async function readGroupTimes(connection: DuckDBConnection, rows: FactRows<object>): Promise<GroupTimes[]> {
  if (!isFactRelation(rows)) return groupArray(rows as Array<Record<string, unknown>>);
  const columns = await readRows<{ column_name: string }>(
    connection,
    `DESCRIBE SELECT * FROM (\n${rows.sql}\n)`,
  );
  const correction = columns.some((c) => c.column_name === 'correction')
    ? 'correction.observed_at::TIMESTAMP'
    : 'NULL::TIMESTAMP';
  const text = (sql: string) => `strftime(${sql}, '%Y-%m-%dT%H:%M:%SZ')`;
  const found = await readRows<{
    series_key: string;
    period: string;
    earliest: string;
    method: string;
    earliest_correction: string | null;
    latest: string;
  }>(
    connection,
    `WITH facts AS (
       SELECT series_key, period, observed_at::TIMESTAMP AS known_at, observed_at_method AS method, ${correction} AS corrected_at
         FROM (
${rows.sql}
))
     SELECT arg_min(series_key, known_at) AS series_key, period, ${text('min(known_at)')} AS earliest,
            arg_min(method, known_at) AS method, ${text('min(corrected_at)')} AS earliest_correction,
            ${text('greatest(max(known_at), max(corrected_at))')} AS latest
       FROM facts GROUP BY ${releaseGroupSql('series_key')}, period
      ORDER BY series_key, period`,
  );
  return found.map((row) => ({
    series_key: row.series_key,
    period: row.period,
    earliest: { observed_at: row.earliest, method: row.method as KnowledgeTime['method'] },
    earliest_correction: row.earliest_correction,
    latest: row.latest,
  }));
}

function groupArray(rows: ReadonlyArray<Record<string, unknown>>): GroupTimes[] {
  const groups = new Map<string, GroupTimes>();
  for (const row of rows) {
    const seriesKey = String(row.series_key);
    const period = String(row.period);
    const at = String(row.observed_at);
    const corrected = (row.correction as KnowledgeTime | undefined)?.observed_at ?? null;
    const group = seriesKey.startsWith('bls.') ? seriesKey : `${seriesKey.split('.')[0]}.`;
    const key = `${group}\u0000${period}`;
    const known = groups.get(key);
    const latest = corrected !== null && corrected > at ? corrected : at;
    if (known === undefined) {
      groups.set(key, {
        series_key: seriesKey,
        period,
        earliest: { observed_at: at, method: row.observed_at_method as KnowledgeTime['method'] },
        earliest_correction: corrected,
        latest,
      });
      continue;
    }
    if (at < known.earliest.observed_at) {
      known.series_key = seriesKey;
      known.earliest = { observed_at: at, method: row.observed_at_method as KnowledgeTime['method'] };
    }
    if (corrected !== null && (known.earliest_correction === null || corrected < known.earliest_correction)) {
      known.earliest_correction = corrected;
    }
    if (latest > known.latest) known.latest = latest;
  }
  return [...groups.values()].sort(
    (a, b) => compare(a.series_key, b.series_key) || compare(a.period, b.period),
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
