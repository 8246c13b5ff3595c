/**
 * What an agent reads about each tool and argument (issue 35 item 7): short, self-contained text,
 * written for the tools rather than taken from the REST descriptions of routes.ts, which point to
 * docs/*.md files and name REST-only parameters (format=csv) that an agent can neither open nor pass.
 * Value sets are not written here: the input schemas take them from the REST validation
 * (tool-schema.ts). The agent's limit is tools/list, kept under 40 KB (test/e2e/mcp/mcp.test.ts).
 */
import { SEARCH_MAX_WORDS } from '../contract/search-params.ts';
import { VINTAGE_DATES_MAX } from '../contract/vintage-params.ts';

const PUBLIC_WINDOW = "the public window (each market's 12 most recent reports)";
const SERIES_LISTED = 'list_series and search_series give each series with its key and slug';

/** The history of one series, by key (get_observations) or by macro slug (get_macro_series). */
const HISTORY =
  'Every revision of every period with its provenance (observed_at: when it became known), oldest period ' +
  'first. With as_of: only what had been observed by then, the revision then in force marked in_force. ' +
  'With units, frequency or aggregation: one row per period of the values in force, aggregated, then ' +
  'transformed (meta.view = transformed). With realtime_start/realtime_end, output_type or vintage_dates ' +
  "(ALFRED's real-time view): rows of period, value, realtime_start, realtime_end in one page (meta.view = " +
  'vintages); these do not combine with as_of, units, frequency, aggregation, limit or cursor.';

/** The revisions of one series, by key or by macro slug. */
const REVISIONS =
  'Per period: the first release, each later revision (knowledge time, change, percent change) and the ' +
  'latest, with the total revision. shape=triangle: one row per period, one value per vintage (meta.vintages, ' +
  'at most 500). as_of counts only the revisions known then; from/to filter periods; limit counts periods.';

/** What each tool answers, by tool name (the access rule and as_of are added by tool-schema.ts). */
export const TOOL_TEXT: Readonly<Record<string, string>> = {
  list_series:
    'Catalogue of the series of redistributable sources (public domain, open licence), each with its key, ' +
    'slug and latest value; filter by country, region or currency. A slug here is the slug argument of ' +
    'get_series_history, get_vintage_dates and, for a BLS series, get_macro_series; a key the series ' +
    'argument of get_observations.',
  search_series:
    `Search the series of list_series by 1 to ${SEARCH_MAX_WORDS} words, ranked: every word must start a ` +
    'word of the name, key, slug, FRED id, notes, source, geography, frequency or units. limit and offset ' +
    'page the ranked list; meta.matches counts every match.',
  get_series_history:
    'Public history of one redistributable series: per period the value in force (its latest revision) with ' +
    'revision_number and observed_at, oldest first; licence and attribution in meta. sort_order=desc with ' +
    'limit gives the latest N. Every revision and as_of: get_observations (keyed).',
  get_observations: `History of one series by key. ${HISTORY}`,
  get_observation_revisions: `Revisions of one series by key. ${REVISIONS}`,
  get_aligned_observations:
    'Several series on one calendar: one row per week ending Friday (frequency=w) or month (m), one column ' +
    'per series key in the order given (meta.series), each the value in force at as_of. A finer series gives ' +
    'its last value in the row, a coarser one the value of its period holding the row. fill=ffill carries a ' +
    "series' previous value forward at most one period (flagged filled); fill=none leaves null.",
  get_macro_series: `History of one BLS macro series by slug. ${HISTORY}`,
  get_macro_revisions: `Revisions of one BLS macro series by slug. ${REVISIONS}`,
  get_vintage_dates:
    'The vintage dates of one series: the days (St. Louis time) on which a value of it was first released ' +
    'or revised, each with its knowledge time observed_at (give it as as_of, or the day in vintage_dates, ' +
    'to get_observations or get_macro_series), within realtime_start/realtime_end; oldest first.',
  get_cot_summary:
    'Every futures market the CFTC reported: its slug, CFTC contract market code, first and last report ' +
    'date, active flag, contract lineage, and its latest Commitments of Traders report (open interest; long, ' +
    'short and net by trader category; weekly changes; percent of open interest). A slug here is the slug ' +
    'argument of get_cot_market.',
  get_cot_market:
    'Commitments of Traders history of one futures market, one row per weekly report. Without a key: ' +
    `${PUBLIC_WINDOW}; a key with cot:history gets every report, with as_of, from, to, sort_order, limit ` +
    'and cursor.',
  get_cot_reports:
    "Every market's Commitments of Traders report of one date and report type: one row per market (slug, " +
    'CFTC code, exchange, sector) with its report as get_cot_market gives it. A date without a report is an ' +
    `empty list. Public for the dates of ${PUBLIC_WINDOW}; older dates need cot:history. The rows are wide: ` +
    'an answer over the response budget is a tool error saying how to narrow it.',
  get_fx_rates:
    'ECB euro reference rates (units of each currency per euro): the latest, the last reference date at or ' +
    'before date, or with from/to a time series of every reference date. A weekend or TARGET holiday is ' +
    'answered with the business day before, and meta says so. base other than EUR gives cross rates and ' +
    'amount scales them: computed rates are exact decimal arithmetic rounded half away from zero to 6 ' +
    'significant digits (meta.rounding). A time series of too many rates is refused: ask for fewer ' +
    'currencies or a shorter range.',
  get_releases:
    'Release calendar of BLS, CFTC and ECB data: past releases (released_at, the series and values they ' +
    'carried, first releases and revisions) and scheduled ones (scheduled_at and its basis). Times in UTC, ' +
    'local_time in the publisher zone.',
  get_changes:
    'The series and COT markets whose data changed from snapshot since to the one in service: new periods, ' +
    'revised periods and backfilled periods; meta.reference_tables names the reference lists that changed. ' +
    'Keep meta.current.id and ask again with it. Without a key: redistributable sources and COT reports of ' +
    'the public window; observations:read adds every source, cot:history older COT reports.',
  get_status:
    'The snapshot in service and, per source, its last period and observation time, cadence, next release ' +
    'due and staleness; the snapshot ids the store holds (since of get_changes).',
};

/** The path argument of a tool: what it names and which tool lists the values. */
export const SLUG_TEXT: Readonly<Record<string, string>> = {
  get_series_history: `Slug of a redistributable series with data (${SERIES_LISTED}).`,
  get_macro_series: `Slug of a BLS series (${SERIES_LISTED}).`,
  get_macro_revisions: `Slug of a BLS series (${SERIES_LISTED}).`,
  get_vintage_dates: `Slug of a catalogued series (${SERIES_LISTED}).`,
  get_cot_market:
    'The market: its slug (get_cot_summary lists every market with its slug) or its CFTC contract market ' +
    'code such as 088691.',
};

const PERIOD = 'YYYY, YYYY-MM, YYYY-Qn or YYYY-MM-DD';

/** Each argument in a few words, by query parameter name: what PARAMS declares for it. */
export const PARAM_TEXT: Readonly<Record<string, string>> = {
  country: 'ISO 3166-1 alpha-2 country code, any case (US).',
  currency: 'ISO 4217 currency code, any case (USD).',
  region: 'UN M49 area: a three-digit code (150) or its kebab-case name (northern-europe).',
  series: `Series key <source>.<native id>, such as bls.CES0000000001 (${SERIES_LISTED}).`,
  as_of:
    'Point in time, RFC 3339 (2025-12-31T12:00:00Z) or a day (its end in UTC): only what was known then.',
  from: `First period (${PERIOD}): every period with a day on or after it.`,
  to: `Last period (${PERIOD}): every period with a day on or before it.`,
  observation_start: "FRED's name for from; give one of the two.",
  observation_end: "FRED's name for to; give one of the two.",
  limit: 'Rows per page, 1 to 10000 (default 1000).',
  cursor: 'meta.next_cursor of the previous page.',
  sort_order: 'asc (default) oldest period first, desc newest first; with limit, desc gives the latest N.',
  report_type:
    "COT report: legacy, disaggregated or tff (futures only), the same with _combined (futures and options), or cit. Default: the market's first.",
  units:
    'After any aggregation: lin levels (default), chg change, ch1 change from a year ago, pch % change, pc1 % ' +
    'change from a year ago, pca compounded annual rate, cch continuously compounded, cca continuously ' +
    'compounded annual, log natural log.',
  frequency:
    "Aggregate to a coarser frequency than the series' own before units: w weeks ending Friday, m, q, a.",
  aggregation: 'How frequency aggregates: avg (default), sum, or eop (the last value of the period).',
  source: 'Publisher: bls, cftc or ecb.',
  since:
    'Snapshot id such as 20261123T120000Z-0123abcd: meta.current.id of the last answer, or one get_status lists.',
  shape:
    'list (default): per period its first release, revisions and latest; triangle: one value per vintage.',
  fill: 'ffill (default): the previous value carried forward at most one period; none: null.',
  search_text: `1 to ${SEARCH_MAX_WORDS} words, any case, such as nonfarm payrolls.`,
  offset: 'Matches to skip before the first row, 0 to 100000 (default 0).',
  realtime_start:
    'First day of the real-time period (YYYY-MM-DD, St. Louis time); 1776-07-04 for every vintage.',
  realtime_end: 'Last day of the real-time period (YYYY-MM-DD; default today); 9999-12-31 for every vintage.',
  output_type:
    '1 (default) every value with the real-time period it was in force; 2 all observations by vintage date; ' +
    '3 the same, new and revised values only; 4 initial release only.',
  vintage_dates: `Up to ${VINTAGE_DATES_MAX} days YYYY-MM-DD, comma-separated, ascending: the data as known at the end of each.`,
  report_date:
    'Report date YYYY-MM-DD (the Tuesday of the positions); default: the newest of the report type.',
  base: 'Base currency (default EUR) or any currency the ECB quotes that day, any case: cross rates.',
  symbols: 'The same as currency (the Frankfurter name); give one of the two.',
  amount: 'Units of base to convert, a positive decimal such as 100 (default 1).',
  date: 'Reference day YYYY-MM-DD: the rates of the last reference date at or before it (default: the latest).',
  fields:
    "The row's fields to return, comma-separated (period,value,observed_at); the rows keep their order.",
};

/**
 * Arguments a route declares its own way (a per-route spec in routes.ts), by tool: what PARAM_TEXT
 * says would be wrong for it. A route's own spec without a text here is described by its REST text.
 */
export const TOOL_PARAM_TEXT: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  search_series: { limit: 'Matches per page, 1 to 10000 (default 1000).' },
  get_series_history: { limit: 'Rows per page, 1 to 10000 (default: every period in one page).' },
  get_aligned_observations: {
    series:
      'Series keys, 1 to 50 comma-separated, one column each in this order: observation keys (bls.CES0000000001, ' +
      'ecb.USD), a COT key cftc.<code>.<report type> (open interest) or <COT key>.net.<category> (a net ' +
      'position; COT columns need cot:history).',
    frequency: 'The calendar of the rows: w (weeks ending Friday) or m (months).',
  },
  get_vintage_dates: { sort_order: 'asc (default) oldest first, desc newest first.' },
  get_cot_reports: {
    report_type: 'COT report (default legacy): futures only, _combined with options, or cit.',
  },
  get_fx_rates: {
    currency: 'ISO 4217 codes to return: one or a comma-separated list of at most 40, any case (usd,gbp).',
    from: 'First day YYYY-MM-DD of a time series; not together with date.',
    to: 'Last day YYYY-MM-DD of the time series (default: the latest reference date); needs from.',
  },
  get_releases: {
    series:
      'Only releases carrying this series: a key or slug (list_series), or a COT market slug (get_cot_summary).',
    from: `First UTC day (${PERIOD}) of the releases; default 92 days ago.`,
    to: `Last UTC day (${PERIOD}) of the releases; at most 1096 days after from.`,
  },
};

/**
 * How to narrow an answer of a tool that does not page (no limit), for the tool error it answers
 * when over the response budget; a route taking `fields` is told of it besides (tool-budget.ts).
 */
export const NARROW_TEXT: Readonly<Record<string, string>> = {
  list_series: 'filter with country, region or currency, or find the series with search_series',
  get_vintage_dates: 'narrow realtime_start/realtime_end',
  get_cot_summary: 'ask for the markets one at a time with get_cot_market',
  get_cot_reports:
    'ask for another report_type (cit and tff cover fewer markets), or for one market with get_cot_market',
  get_fx_rates: 'ask for fewer currencies (currency) or a shorter range (from/to)',
  get_releases: 'filter with source or series, or a shorter from/to',
  get_changes: 'give a later snapshot as since',
  get_status: 'read the status over REST',
};
