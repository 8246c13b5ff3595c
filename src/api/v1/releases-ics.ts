import ical from 'ical-generator';
import type { Success } from '../../contract/envelope.ts';
import type { ReleaseRow } from './releases.ts';

/**
 * Renders the rows of a /releases envelope as an RFC 5545 calendar (ical-generator): one VEVENT
 * per release, UID `<id>@mmds` (stable, the same once a scheduled release is past), DTSTART in
 * UTC, DTSTAMP the snapshot's publication time (so the body, and its ETag, only change with the data).
 */
export function renderReleasesIcs(envelope: Success): string {
  const rows = envelope.data as ReleaseRow[];
  const stamp = new Date(String(envelope.meta.snapshot_published_at ?? envelope.meta.generated_at));
  const calendar = ical({
    name: 'MMDS release calendar',
    description: 'Past (from the data) and scheduled (from the calendars) releases of BLS, CFTC and ECB data',
    prodId: { company: 'mmds', product: 'release-calendar', language: 'EN' },
  });
  for (const row of rows) {
    const at = new Date((row.released_at ?? row.scheduled_at)!);
    calendar.createEvent({
      id: `${row.id}@mmds`,
      start: at,
      end: at,
      stamp,
      summary: `${row.status === 'scheduled' ? 'Scheduled' : 'Released'}: ${row.name} (${row.source.toUpperCase()}, ${row.reference_period})`,
      description: describeRow(row),
      url: sourceHttpUrl(row.source_url),
    });
  }
  return calendar.toString();
}

function describeRow(row: ReleaseRow): string {
  const carried =
    row.status === 'past'
      ? `Carried ${row.value_count} values of ${row.series_count} series (${row.first_releases} first releases, ${row.revisions} revisions), periods ${row.first_period} to ${row.last_period}.`
      : `Expected to carry ${row.series_count} series, reference period ${row.reference_period}.`;
  const listed =
    row.series.length > 0
      ? ` Series: ${row.series.join(', ')}${row.series_count > row.series.length ? ', ...' : ''}.`
      : '';
  return [
    `${row.status === 'past' ? 'Released' : 'Scheduled'} at ${row.local_time} ${row.time_zone}.`,
    carried + listed,
    `Basis: ${row.basis}${row.knowledge_method ? ` (${row.knowledge_method})` : ''}.`,
    ...(row.note ? [`Note: ${row.note}.`] : []),
    ...(row.source_url ? [`Calendar source: ${row.source_url}`] : []),
    `Release id: ${row.id}`,
  ].join('\n');
}

/**
 * The web address of a calendar row's source: http(s) as is; the calendar files' `github:<owner>/<repo>
 * <path>@<commit>` as its GitHub page; null otherwise (no URL property then).
 */
export function sourceHttpUrl(source: string | null): string | null {
  if (source === null) return null;
  if (/^https?:\/\//.test(source)) return source;
  const match = /^github:([\w.-]+\/[\w.-]+) (\S+)@([0-9a-f]{40})$/.exec(source);
  return match ? `https://github.com/${match[1]}/blob/${match[3]}/${match[2]}` : null;
}
