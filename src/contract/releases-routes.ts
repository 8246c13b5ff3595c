/**
 * Endpoint 19 in the route table, the release calendar, in its two formats: JSON (/api/v1/releases)
 * and iCalendar (/api/v1/releases.ics), with the same filters (docs/api/releases.md).
 */
import type { ParamName, ParamSpec } from './params.ts';
import { RELEASES_RANGE_PARAMS, RELEASES_SERIES_PARAM } from './releases-params.ts';
import { LATEST_MAX_AGE, type RouteDefinition } from './route-definition.ts';

/** The filters of the release calendar (JSON and iCalendar alike). */
const RELEASE_FILTERS: readonly ParamName[] = ['source', 'series', 'from', 'to'];
const RELEASE_PARAMS: Partial<Record<ParamName, ParamSpec>> = {
  series: RELEASES_SERIES_PARAM,
  ...RELEASES_RANGE_PARAMS,
};

/** The two routes of endpoint 19: JSON, then iCalendar. */
export const RELEASES_ROUTES: readonly RouteDefinition[] = [
  {
    id: 'releases',
    number: 19,
    path: '/api/v1/releases',
    summary: 'Release calendar: past releases (from the data) and scheduled ones (from the calendars)',
    description:
      'Per release of BLS, CFTC and ECB data: status `past` (from the snapshot: released_at is the knowledge ' +
      'time of the values it carried, with their series, count, first releases and revisions) or `scheduled` ' +
      '(from the shipped calendars after the request time: scheduled_at, with basis calendar_file, exception or ' +
      'rule and the source_url of the calendar row). Times in UTC, and local_time in the publisher zone ' +
      '(America/New_York for BLS and CFTC, Europe/Berlin for the ECB). Scheduled: BLS as far as ' +
      'data/calendars/bls_release_dates.csv goes, CFTC 91 days ahead, ECB 31 days ahead (meta.horizon). ' +
      'Filter by source, series (key or slug) and from/to (UTC days; default from: 92 days ago, at most ' +
      '1096 days). The same releases as iCalendar: /api/v1/releases.ics. Details: docs/api/releases.md.',
    access: { kind: 'public' },
    query: RELEASE_FILTERS,
    maxAge: LATEST_MAX_AGE,
    prerender: 'filters',
    params: RELEASE_PARAMS,
  },
  {
    id: 'releases-ics',
    number: 19,
    path: '/api/v1/releases.ics',
    summary: 'Release calendar as iCalendar (RFC 5545)',
    description:
      'The releases of /api/v1/releases, with the same parameters, as an RFC 5545 calendar ' +
      '(`text/calendar; charset=utf-8`): one VEVENT per release, its UID stable (the release id, the same ' +
      'once a scheduled release is past), DTSTART in UTC, SUMMARY, DESCRIPTION with what it carries and ' +
      'the basis, URL of the calendar source where there is one. Errors are JSON envelopes.',
    access: { kind: 'public' },
    query: RELEASE_FILTERS,
    maxAge: LATEST_MAX_AGE,
    prerender: 'filters',
    params: RELEASE_PARAMS,
    mediaType: 'text/calendar',
  },
];
