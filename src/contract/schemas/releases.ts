import * as js from './json-schema.ts';

const RELEASE_SOURCE_IDS = ['bls', 'cftc', 'ecb'];
const BASES = ['store', 'calendar_file', 'exception', 'rule'];

/** Endpoint 19: one row per release, past (from the store) or scheduled (from a calendar). */
export const RELEASES_DATA: js.JsonSchema = js.arrayOf(
  js.object({
    id: js.text(
      'Stable id of the release: source, release name and UTC time (`cftc-commitments-of-traders-20261130T203000Z`); the iCalendar UID is `<id>@mmds`.',
    ),
    source: js.oneOfText(RELEASE_SOURCE_IDS, 'Catalog source id.'),
    name: js.text(
      'The release: a BLS news release (Employment Situation, ...), Commitments of Traders, Euro foreign exchange reference rates.',
    ),
    status: js.oneOfText(
      ['past', 'scheduled'],
      '`past`: held in the snapshot; `scheduled`: from a calendar, after the request time.',
    ),
    released_at: js.nullable(
      js.timestamp(
        'When a past release became known (the knowledge time of its values); null when scheduled.',
      ),
    ),
    scheduled_at: js.nullable(js.timestamp('When a scheduled release is due; null when past.')),
    time_zone: js.oneOfText(['America/New_York', 'Europe/Berlin'], "The publisher's IANA time zone."),
    local_time: js.text('The same instant as wall time in time_zone, `YYYY-MM-DDTHH:MM:SS` (no offset).', {
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
    }),
    reference_period: js.period(
      'The period it carries (past: the newest carried; COT: the as-of date; ECB: the reference date).',
    ),
    first_period: js.nullable(js.period('Oldest period carried by a past release; null when scheduled.')),
    last_period: js.nullable(js.period('Newest period carried by a past release; null when scheduled.')),
    series: js.arrayOf(
      js.text(),
      'Series keys it carries (scheduled: is expected to carry), in key order, at most 50.',
    ),
    series_count: js.integer('Number of series it carries (or is expected to).', { minimum: 0 }),
    value_count: js.nullable(
      js.integer('Values (observations or COT reports) a past release carried.', { minimum: 0 }),
    ),
    first_releases: js.nullable(
      js.integer('Of those, first releases of their period (revision 1).', { minimum: 0 }),
    ),
    revisions: js.nullable(js.integer('Of those, revisions of a period released before.', { minimum: 0 })),
    knowledge_method: js.nullable(
      js.text(
        'How the knowledge time of a past release was established (release_calendar, publisher_timestamp, vintage, collected, ...; several joined by `, `).',
      ),
    ),
    basis: js.oneOfText(
      BASES,
      '`store`: the knowledge times held; `calendar_file`: a row of data/calendars/bls_release_dates.csv; `exception`: a row of data/calendars/cftc_cot_release_exceptions.csv or a documented CFTC notice; `rule`: the standing rule (COT Friday 15:30 New York after federal holidays; ECB 16:00 CET on TARGET days).',
    ),
    note: js.nullable(
      js.text('Why the release differs from the rule (holiday, shutdown) or how its time was established.'),
    ),
    source_url: js.nullable(
      js.text('Where the calendar row was read (the row’s source_url); null for rules and past releases.'),
    ),
  }),
  'Releases, oldest first: past ones, then scheduled ones.',
);

/** Endpoint 19: the window and horizons applied. */
export const RELEASES_META: Record<string, js.JsonSchema> = {
  now: js.timestamp('The request time: releases up to it are past, later ones scheduled.'),
  from: js.date('First UTC day of the window (default: 92 days before today).'),
  to: js.nullable(js.date('Last UTC day of the window; null when open (up to each horizon).')),
  sources: js.arrayOf(js.oneOfText(RELEASE_SOURCE_IDS), 'The sources listed.'),
  horizon: js.object(
    {
      bls: js.arrayOf(
        js.object({
          release: js.text(),
          last_release_date: js.nullable(
            js.date('The last release day the shipped BLS calendar file holds.'),
          ),
        }),
        'How far the BLS calendar file reaches, per release.',
      ),
      cftc_days: js.integer('Days after the request time that scheduled COT releases are listed.', {
        minimum: 1,
      }),
      ecb_days: js.integer('Days after the request time that scheduled ECB releases are listed.', {
        minimum: 1,
      }),
    },
    'How far ahead scheduled releases go.',
  ),
  snapshot_published_at: js.timestamp(
    'When the snapshot was published (the DTSTAMP of the iCalendar events).',
  ),
  ics_url: js.text('The same releases as iCalendar.'),
};

/** Endpoint 19 as iCalendar: the body is text. */
export const RELEASES_ICS_BODY: js.JsonSchema = {
  type: 'string',
  description:
    'RFC 5545 iCalendar (`text/calendar; charset=utf-8`): one VEVENT per release of the JSON form, UID `<id>@mmds`, DTSTART in UTC.',
};

/** The next scheduled release of a source (/status) or series (/macro), from the calendars. */
export const NEXT_RELEASE: js.JsonSchema = js.object(
  {
    id: js.text('The release id of /api/v1/releases (its iCalendar UID is `<id>@mmds`).'),
    name: js.text('The release.'),
    scheduled_at: js.timestamp('When it is due (UTC).'),
    time_zone: js.oneOfText(['America/New_York', 'Europe/Berlin'], "The publisher's IANA time zone."),
    local_time: js.text('The same instant as wall time in time_zone, `YYYY-MM-DDTHH:MM:SS`.', {
      pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
    }),
    reference_period: js.period('The period it is expected to carry.'),
    basis: js.oneOfText(
      ['calendar_file', 'exception', 'rule'],
      'Where the date comes from (see /api/v1/releases).',
    ),
  },
  'The next release the calendars schedule after the request time; null past the end of the calendar (docs/api/releases.md).',
);
