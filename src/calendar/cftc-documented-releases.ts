/**
 * COT reports whose release the exceptions file cannot date, but the CFTC's notices describe
 * (data/calendars/cftc_cot_release_exceptions.md, "Gaps" and "Not rows, but worth knowing").
 * They are facts about the calendar, kept here as a table beside their sources.
 */

/** Reports released on an unknown day: estimated at the latest time the announced plan allows. */
export interface CftcEstimatedRelease {
  report_dates: readonly string[];
  /** `YYYY-MM-DD`, America/New_York: the latest release day consistent with the sources. */
  release_date: string;
  /** `HH:MM`, America/New_York. */
  release_time_et: string;
  note: string;
}

/** The documented gaps: each report here is served as `estimated`, never as a calendar fact. */
export const CFTC_ESTIMATED_RELEASES: readonly CftcEstimatedRelease[] = [
  {
    report_dates: ['2013-10-08', '2013-10-15', '2013-10-22', '2013-10-29'],
    release_date: '2013-11-08',
    release_time_et: '15:30',
    note:
      'estimated: 2013 shutdown catch-up without per-report dates (CFTC press release 6745-13: two ' +
      'reports in the week of Oct 28, at least two in the week of Nov 4, normal schedule by the ' +
      'Nov 8 release); the latest plausible time, the 2013-11-08 15:30 ET release, is used',
  },
  {
    report_dates: [
      '2018-12-31',
      '2019-01-08',
      '2019-01-15',
      '2019-01-22',
      '2019-01-29',
      '2019-02-05',
      '2019-02-12',
      '2019-02-19',
      '2019-02-26',
    ],
    release_date: '2019-03-08',
    release_time_et: '15:30',
    note:
      'estimated: 2018-19 shutdown catch-up without per-report dates (CFTC press release 7864-19: ' +
      'after 2019-02-01 one report each Tuesday and each Friday until current; the last catch-up ' +
      'report was due 2019-03-05 and the 2019-03-05 report went out on its normal Friday); the ' +
      'latest plausible time, the 2019-03-08 15:30 ET release, is used',
  },
  {
    report_dates: ['2018-12-04'],
    release_date: '2018-12-10',
    release_time_et: '15:30',
    note:
      'estimated: the government closed on 2018-12-05 (national day of mourning) and no COT date ' +
      'was announced; the schedule still listed 2018-12-07 and whether the report was delayed is ' +
      'unknown, so the later of that Friday and the next business day, 2018-12-10 15:30 ET, is used',
  },
];

/** A report released on a known day that is neither an exceptions-file row nor the holiday rule. */
export interface CftcDocumentedRelease {
  report_date: string;
  release_date: string;
  release_time_et: string;
  note: string;
}

/** Reports the CFTC says went out otherwise than its schedule, with no row in the exceptions file. */
export const CFTC_DOCUMENTED_RELEASES: readonly CftcDocumentedRelease[] = [
  {
    // The schedule moved it to Monday 07-07 for Independence Day; the CFTC's special
    // announcement says it was published early in error, on the Friday at 3:30 p.m. EDT.
    report_date: '2014-07-01',
    release_date: '2014-07-04',
    release_time_et: '15:30',
    note: 'published early in error on Friday 2014-07-04 (Independence Day); the schedule gave 2014-07-07',
  },
];
