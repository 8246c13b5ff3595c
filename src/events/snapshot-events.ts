import { join } from 'node:path';
import { type ReleaseName, releaseOfSeries } from '../calendar/release-names.ts';
import { openDuckDb, quotedString, readRows, withConnection } from '../db/duckdb.ts';
import { type ChangedSeriesDetail, DETAIL_ITEMS, diffSnapshotDetails } from '../query/changes-detail.ts';
import { createRightsTable } from '../query/derived-tables.ts';
import type { SnapshotFile, SnapshotManifest } from '../store/manifest.ts';
import type { SnapshotEventInput } from '../store/snapshot-event-step.ts';
import type { EventScope, ReleaseEvent } from './event.ts';
import { writeEventFile } from './event-file.ts';

/**
 * The event step of a publish (PublishOptions.snapshotEvents): computes the staged snapshot's
 * events and writes them into its directory, where the rename that publishes its data publishes
 * them too.
 */
export async function writeSnapshotEvents(input: SnapshotEventInput): Promise<SnapshotFile> {
  return writeEventFile(input.dir, await computeSnapshotEvents(input));
}

/** A changed series with its rights, the release it belongs to and whether its events are public. */
interface Subject extends ChangedSeriesDetail, ReleaseName {
  source: string;
  redistributable: boolean;
}

/**
 * The events of one snapshot (docs/api/events.md), in the order a consumer meets them: one
 * `release.published` per source and release that landed, then `series.released` per series with
 * new periods, then `series.revised` per series whose values in force changed, each by series key.
 * Computed from the one diff of two snapshots (query/changes.ts), never a second one.
 */
export async function computeSnapshotEvents(input: SnapshotEventInput): Promise<ReleaseEvent[]> {
  const { manifest, parent } = input;
  const details = await diffSnapshotDetails(input.layout, parent, manifest, { currentDir: input.dir });
  if (details.length === 0) return [];
  const rights = await readRights(
    input.dir,
    manifest,
    details.map((d) => d.series_key),
  );
  const subjects: Subject[] = details.map((detail) => {
    const right = rights.get(detail.series_key);
    const source = right?.source ?? detail.series_key.split('.')[0]!;
    return {
      ...detail,
      source,
      redistributable: right?.redistributable ?? false,
      ...releaseOfSeries(
        source,
        detail.series_key,
        detail.table === 'cot_reports',
        right?.source_name ?? null,
      ),
    };
  });
  const events: Omit<ReleaseEvent, 'id'>[] = [];
  const base = (subject: Subject | null, source: string) => ({
    snapshot: manifest.id,
    source,
    series: subject?.series_key ?? null,
  });
  const changesLink = parent ? `/api/v1/changes?since=${parent.id}` : null;
  const releases = new Map<string, Subject[]>();
  for (const subject of subjects) {
    const key = `${subject.source}\u0000${subject.release}`;
    releases.set(key, [...(releases.get(key) ?? []), subject]);
  }
  for (const key of [...releases.keys()].sort()) {
    const group = releases.get(key)!;
    const { source, release, release_name } = group[0]!;
    const periods = group.flatMap((s) => [s.new_first, s.new_last, s.revised_first, s.revised_last]);
    const known = periods.filter((p): p is string => p !== null).sort();
    const access = combine(group.map((s) => accessOf(s, 'both')));
    events.push({
      type: 'release.published',
      ...base(null, source),
      observed_at: observedAt(manifest, group),
      ...access,
      data: {
        release,
        release_name,
        reference_period: { first: known[0] ?? null, last: known.at(-1) ?? null },
        series: group.length,
        new_observations: sum(group.map((s) => s.new_count)),
        revisions: sum(group.map((s) => s.revised_count)),
        parent: parent?.id ?? null,
        changes: changesLink,
      },
    });
  }
  for (const subject of subjects) {
    if (subject.new_count === 0) continue;
    const listed = subject.table === 'observations' && subject.new_count <= DETAIL_ITEMS;
    events.push({
      type: 'series.released',
      ...base(subject, subject.source),
      observed_at: observedAt(manifest, [subject]),
      ...accessOf(subject, 'new'),
      data: {
        ...describe(subject),
        first_period: subject.new_first,
        last_period: subject.new_last,
        count: subject.new_count,
        values: listed ? subject.new_values : null,
        link: historyLink(subject, '/api/v1/observations', subject.new_first, subject.new_last),
      },
    });
  }
  for (const subject of subjects) {
    if (subject.revised_count === 0) continue;
    const listed = subject.table === 'observations' && subject.revised_count <= DETAIL_ITEMS;
    events.push({
      type: 'series.revised',
      ...base(subject, subject.source),
      observed_at: observedAt(manifest, [subject]),
      ...accessOf(subject, 'revised'),
      data: {
        ...describe(subject),
        first_period: subject.revised_first,
        last_period: subject.revised_last,
        count: subject.revised_count,
        revisions: listed ? subject.revised_values : null,
        link: historyLink(
          subject,
          '/api/v1/observations/revisions',
          subject.revised_first,
          subject.revised_last,
        ),
      },
    });
  }
  return events.map((event, index) => ({ id: `${manifest.id}:${index + 1}`, ...event }) as ReleaseEvent);
}

/** The series' own facts every series event names. */
function describe(subject: Subject) {
  return {
    kind: subject.table === 'cot_reports' ? 'market' : 'series',
    release: subject.release,
    release_name: subject.release_name,
    market_code: subject.market_code,
    report_type: subject.report_type,
  };
}

/**
 * A link to the periods, pinned by as_of at the snapshot's knowledge (the event's snapshot is in
 * the event too): the keyed history or revisions of a series; null for COT reports, which
 * /api/v1/markets/cot/{slug} serves by market.
 */
function historyLink(
  subject: Subject,
  path: string,
  first: string | null,
  last: string | null,
): string | null {
  if (subject.table !== 'observations' || first === null || last === null) return null;
  const query = new URLSearchParams({ series: subject.series_key, from: first, to: last });
  if (subject.latest_observed_at) query.set('as_of', subject.latest_observed_at);
  return `${path}?${query}`;
}

/**
 * Who may see an event about a series: public when the source is redistributable and, for COT
 * reports, every period it names is in the public window (the 12 latest reports of a market:
 * CONTRACT rule 1); otherwise a key needs observations:read, plus cot:history for older reports.
 */
function accessOf(
  subject: Subject,
  what: 'new' | 'revised' | 'both',
): Pick<ReleaseEvent, 'public' | 'scopes'> {
  const inWindow =
    what === 'new'
      ? subject.new_in_window
      : what === 'revised'
        ? subject.revised_in_window
        : (subject.new_count === 0 || subject.new_in_window) &&
          (subject.revised_count === 0 || subject.revised_in_window);
  const scopes: EventScope[] = ['observations:read'];
  if (subject.table === 'cot_reports' && !inWindow) scopes.push('cot:history');
  return { public: subject.redistributable && inWindow, scopes };
}

/** A release's access: public when all its series are; the scopes any of them needs. */
function combine(
  accesses: Array<Pick<ReleaseEvent, 'public' | 'scopes'>>,
): Pick<ReleaseEvent, 'public' | 'scopes'> {
  const scopes = [...new Set(accesses.flatMap((a) => a.scopes ?? []))].sort() as EventScope[];
  return { public: accesses.every((a) => a.public), scopes };
}

/** The snapshot's creation time, or the latest knowledge time of the facts if later (never earlier than a fact). */
function observedAt(manifest: SnapshotManifest, subjects: readonly Subject[]): string {
  let latest = manifest.created_at;
  for (const subject of subjects)
    if (subject.latest_observed_at && subject.latest_observed_at > latest)
      latest = subject.latest_observed_at;
  return latest;
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/**
 * Source (id and catalog name) and redistributable flag of the changed keys, by the serving rule (query/derived-tables.ts
 * createRightsTable) over the staged snapshot's catalog and source lists.
 */
async function readRights(
  dir: string,
  manifest: SnapshotManifest,
  keys: readonly string[],
): Promise<Map<string, { source: string; source_name: string | null; redistributable: boolean }>> {
  const instance = await openDuckDb({ threads: 1, memoryLimit: '256MB' });
  try {
    return await withConnection(instance, async (connection) => {
      for (const table of ['series', 'sources']) {
        const files = (manifest.tables[table]?.files ?? []).map((f) => quotedString(join(dir, f.file)));
        if (files.length === 0) throw new Error(`snapshot ${manifest.id} has no ${table} table`);
        await connection.run(`CREATE VIEW ${table} AS SELECT * FROM read_parquet([${files.join(', ')}])`);
      }
      await connection.run('CREATE TABLE changed_keys (key VARCHAR)');
      const appender = await connection.createAppender('changed_keys');
      for (const key of keys) {
        appender.appendVarchar(key);
        appender.endRow();
      }
      appender.closeSync();
      await createRightsTable(connection, 'event_rights', 'SELECT key FROM changed_keys');
      const rows = await readRows<{
        key: string;
        source: string;
        source_name: string | null;
        redistributable: boolean;
      }>(
        connection,
        'SELECT r.key, r.source, s.name AS source_name, r.redistributable FROM event_rights r LEFT JOIN sources s ON s.id = r.source',
      );
      return new Map(rows.map((row) => [row.key, row]));
    });
  } finally {
    instance.closeSync();
  }
}
