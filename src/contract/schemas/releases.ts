import {
  arrayOf,
  date,
  integer,
  type JsonSchema,
  nullable,
  object,
  oneOfText,
  period,
  text,
  timestamp,
} from './json-schema.ts';

const RELEASE_SOURCE_IDS = ['bls', 'cftc', 'ecb'];
const BASES = ['store', 'calendar_file', 'exception', 'rule'];

/** Endpoint 19: one row per release, past (from the store) or scheduled (from a calendar). */
export const RELEASES_DATA: JsonSchema = arrayOf(
  object({
    id: text(
      'Stable id of the release: source, release name and UTC time (`cftc-commitments-of-traders-20261130T203000Z`); the iCalendar UID is `<id>@mmds`.',
    ),
    source: oneOfText(RELEASE_SOURCE_IDS, 'Catalog source id.'),
    name: text(
      'The release: a BLS news release (Employment Situation, ...), Commitments of Traders, Euro foreign exchange reference rates.',
    ),
    status: oneOfText(
      ['past', 'scheduled'],
      '`past`: held in the snapshot; `scheduled`: from a calendar, after the request time.',
    ),
    released_at: nullable(
      timestamp('When a past release became known (the knowledge time of its values); null when scheduled.'),
    ),
    scheduled_at: nullable(timestamp('When a scheduled release is due; null when past.')),
    time_zone: oneOfText(['America/New_York', 'Europe/Berlin'], "The publisher's IANA time zone."),
    local_time: text('The same instant as wall time in time_zone, `YYYY-MM-DDTHH:MM:SS` (no offset).', {
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
    }),
    reference_period: period(
      'The period it carries (past: the newest carried; COT: the as-of date; ECB: the reference date).',
    ),
    first_period: nullable(period('Oldest period carried by a past release; null when scheduled.')),
    last_period: nullable(period('Newest period carried by a past release; null when scheduled.')),
    series: arrayOf(
      text(),
      'Series keys it carries (scheduled: is expected to carry), in key order, at most 50.',
    ),
    series_count: integer('Number of series it carries (or is expected to).', { minimum: 0 }),
    value_count: nullable(
      integer('Values (observations or COT reports) a past release carried.', { minimum: 0 }),
    ),
    first_releases: nullable(
      integer('Of those, first releases of their period (revision 1).', { minimum: 0 }),
    ),
    revisions: nullable(integer('Of those, revisions of a period released before.', { minimum: 0 })),
    knowledge_method: nullable(
      text(
        'How the knowledge time of a past release was established (release_calendar, publisher_timestamp, vintage, collected, ...; several joined by `, `).',
      ),
    ),
    basis: oneOfText(
      BASES,
      '`store`: the knowledge times held; `calendar_file`: a row of data/calendars/bls_release_dates.csv; `exception`: a row of data/calendars/cftc_cot_release_exceptions.csv or a documented CFTC notice; `rule`: the standing rule (COT Friday 15:30 New York after federal holidays; ECB 16:00 CET on TARGET days).',
    ),
    note: nullable(
      text('Why the release differs from the rule (holiday, shutdown) or how its time was established.'),
    ),
    source_url: nullable(
      text('Where the calendar row was read (the row’s source_url); null for rules and past releases.'),
    ),
  }),
  'Releases, oldest first: past ones, then scheduled ones.',
);

/** Endpoint 19: the window and horizons applied. */
export const RELEASES_META: Record<string, JsonSchema> = {
  now: timestamp('The request time: releases up to it are past, later ones scheduled.'),
  from: date('First UTC day of the window (default: 92 days before today).'),
  to: nullable(date('Last UTC day of the window; null when open (up to each horizon).')),
  sources: arrayOf(oneOfText(RELEASE_SOURCE_IDS), 'The sources listed.'),
  horizon: object(
    {
      bls: arrayOf(
        object({
          release: text(),
          last_release_date: nullable(date('The last release day the shipped BLS calendar file holds.')),
        }),
        'How far the BLS calendar file reaches, per release.',
      ),
      cftc_days: integer('Days after the request time that scheduled COT releases are listed.', {
        minimum: 1,
      }),
      ecb_days: integer('Days after the request time that scheduled ECB releases are listed.', {
        minimum: 1,
      }),
    },
    'How far ahead scheduled releases go.',
  ),
  snapshot_published_at: timestamp('When the snapshot was published (the DTSTAMP of the iCalendar events).'),
  ics_url: text('The same releases as iCalendar.'),
};

/** Endpoint 19 as iCalendar: the body is text. */
export const RELEASES_ICS_BODY: JsonSchema = {
  type: 'string',
  description:
    'RFC 5545 iCalendar (`text/calendar; charset=utf-8`): one VEVENT per release of the JSON form, UID `<id>@mmds`, DTSTART in UTC.',
};

/** The next scheduled release of a source (/status) or series (/macro), from the calendars. */
export const NEXT_RELEASE: JsonSchema = object(
  {
    id: text('The release id of /api/v1/releases (its iCalendar UID is `<id>@mmds`).'),
    name: text('The release.'),
    scheduled_at: timestamp('When it is due (UTC).'),
    time_zone: oneOfText(['America/New_York', 'Europe/Berlin'], "The publisher's IANA time zone."),
    local_time: text('The same instant as wall time in time_zone, `YYYY-MM-DDTHH:MM:SS`.', {
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
    }),
    reference_period: period('The period it is expected to carry.'),
    basis: oneOfText(
      ['calendar_file', 'exception', 'rule'],
      'Where the date comes from (see /api/v1/releases).',
    ),
  },
  'The next release the calendars schedule after the request time; null past the end of the calendar (docs/api/releases.md).',
);
