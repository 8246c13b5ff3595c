import { z } from 'zod';
import { EVENT_TYPES } from '../events/event.ts';
import { isRealPeriod, PERIOD_FILTER_FORMS } from '../model/period-range.ts';
import { SERVED_COT_REPORT_TYPES } from '../model/records.ts';
import { TRANSFORM_AGGREGATIONS, TRANSFORM_FREQUENCIES, TRANSFORM_UNITS } from '../model/transforms.ts';
import { COT_PARAMS } from './cot-params.ts';
import { FIELDS_PARAMS } from './fields-param.ts';
import { DAY, FX_MAX_CURRENCIES, FX_PARAMS } from './fx-params.ts';
import { INSTANT_FORMS, INSTANT_PATTERN, isRealDay, normaliseInstant } from './instant.ts';
import type { ParamSpec } from './param-spec.ts';
import { SEARCH_PARAMS } from './search-params.ts';
import { VINTAGE_PARAMS } from './vintage-params.ts';

export type { ParamSpec } from './param-spec.ts';

const SLUG = /^[a-z0-9-]{1,64}$/;
/** A snapshot id (the pattern of store/layout.ts SNAPSHOT_ID_PATTERN): `since` of the change feed. */
const SNAPSHOT_ID = /^\d{8}T\d{6}Z-[0-9a-f]{8}$/;
const PERIOD = /^\d{4}(-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?|-Q[1-4])?$/;
/** What a period filter accepts: a real period of one of the four forms (no 2025-02-30). */
const PERIOD_EXPECTED = `a real period ${PERIOD_FILTER_FORMS}, such as 2025, 2025-06, 2025-Q2 or 2025-06-15`;

/** The `type` filter of /api/v1/events: event types, comma-separated. */
const EVENT_TYPE = `(${EVENT_TYPES.map((type) => type.replace('.', '\\.')).join('|')})`;
const EVENT_TYPE_LIST = new RegExp(`^${EVENT_TYPE}(,${EVENT_TYPE}){0,${EVENT_TYPES.length - 1}}$`);

/** Currency codes of /fx/ecb: any case, answered in upper case. */
export { FX_MAX_CURRENCIES };

const FX_CODE = /^[A-Za-z]{3}$/;

/** A keyed-only period bound (`from`, `to` and their FRED aliases): the same forms and checks. */
function periodParam(description: string) {
  return {
    description,
    schema: z.string().regex(PERIOD).refine(isRealPeriod),
    expected: PERIOD_EXPECTED,
    openapi: { type: 'string', pattern: PERIOD.source },
    keyedOnly: true,
  } satisfies ParamSpec;
}

export const PARAMS = {
  slug: {
    description: 'Identifier of a market or series (lowercase letters, digits and hyphens).',
    schema: z.string().regex(SLUG),
    expected: 'a slug of lowercase letters, digits and hyphens, at most 64 characters',
    openapi: { type: 'string', pattern: SLUG.source, maxLength: 64 },
  },
  // Codes in any case, as on /fx/ecb: read (and echoed in meta.filters) in upper case.
  country: {
    description: 'ISO 3166-1 alpha-2 country code, upper or lower case (US or us).',
    schema: z
      .string()
      .regex(/^[A-Za-z]{2}$/)
      .transform((code) => code.toUpperCase()),
    expected: 'an ISO 3166-1 alpha-2 code such as US or us, known to the reference list',
    openapi: { type: 'string', pattern: '^[A-Za-z]{2}$' },
    reference: 'countries',
  },
  currency: {
    description: 'ISO 4217 alphabetic currency code, upper or lower case (USD or usd).',
    schema: z
      .string()
      .regex(/^[A-Za-z]{3}$/)
      .transform((code) => code.toUpperCase()),
    expected: 'an ISO 4217 code such as USD or usd, known to the reference list',
    openapi: { type: 'string', pattern: '^[A-Za-z]{3}$' },
    reference: 'currencies',
  },
  region: {
    description: 'UN M49 area: a three-digit code (150) or its kebab-case English name (europe).',
    schema: z.string().regex(/^(\d{3}|[a-z][a-z0-9-]{1,63})$/),
    expected: 'a UN M49 code such as 150 or a name such as northern-europe, known to the reference list',
    openapi: { type: 'string', pattern: '^(\\d{3}|[a-z][a-z0-9-]{1,63})$' },
    reference: 'regions',
  },
  series: {
    description: 'Series key `<source>.<native id>`, e.g. bls.CUUR0000SA0.',
    schema: z.string().regex(/^[a-z0-9-]{1,32}\.[A-Za-z0-9_.-]{1,64}$/),
    expected: 'a series key such as bls.CUUR0000SA0',
    openapi: { type: 'string', pattern: '^[a-z0-9-]{1,32}\\.[A-Za-z0-9_.-]{1,64}$' },
    required: true,
  },
  as_of: {
    description:
      'Point in time: only what had been observed at or before it, with the revision then in force marked. ' +
      'RFC 3339 with Z or an offset, fractional seconds allowed, or a day alone (the end of that day in UTC); ' +
      'read as UTC whole seconds (a fraction is dropped, so never later than asked), which meta.as_of states.',
    schema: z
      .string()
      .refine((text) => normaliseInstant(text) !== null)
      .transform((text) => normaliseInstant(text)!),
    expected: `${INSTANT_FORMS}; not in the future`,
    openapi: {
      // No `format`: neither date-time nor date alone covers both forms; the pattern states them.
      type: 'string',
      pattern: INSTANT_PATTERN,
      examples: [
        '2025-12-31T12:00:00Z',
        '2025-12-31T12:00:00.000Z',
        '2025-12-31T13:00:00+01:00',
        '2025-12-31',
      ],
    },
    keyedOnly: true,
  },
  from: periodParam(
    'Start of the period range (YYYY, YYYY-MM, YYYY-Qn or YYYY-MM-DD), from its first day: every period ' +
      'that has a day on or after it is included, whatever the series frequency (from=2025-06-15 on a ' +
      'monthly series includes 2025-06). Alias: observation_start.',
  ),
  to: periodParam(
    'End of the period range (YYYY, YYYY-MM, YYYY-Qn or YYYY-MM-DD), to its last day: every period that ' +
      'has a day on or before it is included (to=2025-Q2 ends on 2025-06-30; to=2025-06-15 on a monthly ' +
      'series includes 2025-06). Alias: observation_end.',
  ),
  observation_start: periodParam('The same as `from` (the FRED name); give one of the two.'),
  observation_end: periodParam('The same as `to` (the FRED name); give one of the two.'),
  limit: {
    description: 'Rows per page, 1 to 10000 (default 1000).',
    schema: z
      .string()
      .regex(/^[1-9]\d{0,4}$/)
      .transform(Number)
      .refine((n) => n <= 10_000),
    expected: 'a whole number from 1 to 10000',
    openapi: { type: 'integer', minimum: 1, maximum: 10000, default: 1000 },
    keyedOnly: true,
  },
  cursor: {
    description: 'Opaque cursor from meta.next_cursor of the previous page.',
    schema: z.string().regex(/^[A-Za-z0-9_-]{1,200}$/),
    expected: 'the opaque value of meta.next_cursor',
    openapi: { type: 'string' },
    keyedOnly: true,
  },
  format: {
    description: 'Response format: json (default) or csv (RFC 4180 with a header row).',
    schema: z.enum(['json', 'csv']),
    expected: 'json or csv',
    openapi: { type: 'string', enum: ['json', 'csv'], default: 'json' },
    keyedOnly: true,
  },
  report_type: {
    description:
      'COT report: legacy, disaggregated or tff (futures only), the same with `_combined` (futures and ' +
      "options combined), or cit (Commodity Index Trader supplement); default: the market's first report type.",
    schema: z.enum(SERVED_COT_REPORT_TYPES),
    expected: SERVED_COT_REPORT_TYPES.join(', '),
    openapi: { type: 'string', enum: [...SERVED_COT_REPORT_TYPES] },
  },
  base: {
    description:
      'Base currency of /fx/ecb: EUR (default, the ECB reference rates as published) or any ' +
      'currency the ECB quotes on the reference date, upper or lower case. Other bases are cross ' +
      'rates (EUR->quote / EUR->base of the same date, 6 significant digits), with EUR as a quote.',
    schema: z.string().regex(FX_CODE),
    expected: 'EUR or a currency code the ECB quotes on the reference date, such as USD or usd',
    openapi: { type: 'string', pattern: FX_CODE.source, default: 'EUR' },
  },
  date: {
    description:
      'Reference day of /fx/ecb (YYYY-MM-DD, not after today in UTC): the rates of the last ECB ' +
      'reference date at or before it (the ECB publishes on TARGET business days). Default: the latest.',
    schema: z.string().regex(DAY).refine(isRealDay),
    expected: 'a real calendar day YYYY-MM-DD, not after today (UTC)',
    openapi: { type: 'string', format: 'date', pattern: DAY.source },
  },
  units: {
    description:
      "FRED's units transformation of the values in force at as_of, after any aggregation " +
      '(docs/api/transforms.md): lin levels (default), chg change, ch1 change from a year ago, pch ' +
      'percent change, pc1 percent change from a year ago, pca compounded annual rate, cch ' +
      'continuously compounded rate, cca continuously compounded annual rate, log natural log. With ' +
      'units, frequency or aggregation the reply is one row per period (not every revision); a ' +
      'value that cannot be computed (no earlier period, zero or negative base) is null with a note.',
    schema: z.enum(TRANSFORM_UNITS),
    expected: TRANSFORM_UNITS.join(', '),
    openapi: { type: 'string', enum: [...TRANSFORM_UNITS], default: 'lin' },
    keyedOnly: true,
  },
  frequency: {
    description:
      'Aggregate the values in force at as_of to a coarser frequency before units: w (weeks ending ' +
      'Friday, for daily series), m (monthly, for daily and weekly series), q (quarterly), a ' +
      "(annual); only frequencies coarser than the series' own (docs/api/transforms.md).",
    schema: z.enum(TRANSFORM_FREQUENCIES),
    expected: `${TRANSFORM_FREQUENCIES.join(', ')}, coarser than the series' own frequency`,
    openapi: { type: 'string', enum: [...TRANSFORM_FREQUENCIES] },
    keyedOnly: true,
  },
  aggregation: {
    description:
      'How frequency aggregates: avg (default, as FRED), sum or eop (the last value of the period). ' +
      'Needs frequency. A period the values do not fully cover is kept for avg (complete=false) and ' +
      'null for sum and eop (docs/api/transforms.md).',
    schema: z.enum(TRANSFORM_AGGREGATIONS),
    expected: `${TRANSFORM_AGGREGATIONS.join(', ')}, together with frequency`,
    openapi: { type: 'string', enum: [...TRANSFORM_AGGREGATIONS], default: 'avg' },
    keyedOnly: true,
  },
  source: {
    description:
      'Catalog source id of a publisher with a release calendar: bls, cftc or ecb (see /api/v1/sources).',
    schema: z.string().regex(/^[a-z0-9-]{1,32}$/),
    expected: 'one of the sources with a release calendar: bls, cftc, ecb',
    openapi: { type: 'string', pattern: '^[a-z0-9-]{1,32}$' },
  },
  since: {
    description:
      'Snapshot id of the change feed (docs/api/changes.md): what changed from that snapshot to the one in ' +
      'service. Keep meta.current.id of each answer and ask again with it. The ids the store still holds are ' +
      'listed in /api/v1/status (snapshots); an unknown or pruned id is a 400 that lists them.',
    schema: z.string().regex(SNAPSHOT_ID),
    expected: 'a snapshot id such as 20261123T120000Z-0123abcd that the store still holds',
    openapi: { type: 'string', pattern: SNAPSHOT_ID.source },
    required: true,
  },
  after: {
    description:
      'Event id to read after (docs/api/events.md): meta.next_after of the previous page, or the id of the ' +
      'last event seen; `<snapshot id>:0` reads from the start of that snapshot. Absent: from the oldest ' +
      'event kept (JSON) or from now (stream). An id older than the log (pruned) or unknown is a 410.',
    schema: z.string().regex(/^\d{8}T\d{6}Z-[0-9a-f]{8}:\d{1,9}$/),
    expected: 'an event id such as 20261123T120000Z-0123abcd:4',
    openapi: { type: 'string', pattern: '^\\d{8}T\\d{6}Z-[0-9a-f]{8}:\\d{1,9}$' },
  },
  type: {
    description: `Event types, comma-separated: ${EVENT_TYPES.join(', ')}.`,
    schema: z.string().regex(EVENT_TYPE_LIST),
    expected: `event types, comma-separated: ${EVENT_TYPES.join(', ')}`,
    openapi: { type: 'string', pattern: EVENT_TYPE_LIST.source },
  },
  shape: {
    description:
      'Layout of the revisions endpoints (docs/api/revisions.md): list (default) one row per period with its ' +
      'first release, every later revision with its change, and the latest; triangle one row per period with ' +
      'one value per vintage (meta.vintages), the value in force at that vintage. At most 500 vintages in a ' +
      'triangle: more is a 400 asking for a narrower from/to or an earlier as_of.',
    schema: z.enum(['list', 'triangle']),
    expected: 'list or triangle',
    openapi: { type: 'string', enum: ['list', 'triangle'], default: 'list' },
    keyedOnly: true,
  },
  fill: {
    description:
      'How /api/v1/observations/aligned fills a period where a series has no value of its own ' +
      "(docs/api/aligned.md): ffill (default) carries the previous period's own value forward at most one " +
      'period; none leaves null.',
    schema: z.enum(['ffill', 'none']),
    expected: 'ffill or none',
    openapi: { type: 'string', enum: ['ffill', 'none'], default: 'ffill' },
    keyedOnly: true,
  },
  ...FX_PARAMS,
  ...COT_PARAMS,
  ...SEARCH_PARAMS,
  ...VINTAGE_PARAMS,
  ...FIELDS_PARAMS,
} satisfies Record<string, ParamSpec>;

/** `format` where CSV is public too (the changes feed, a series' public history): no key for csv. */
export const PUBLIC_FORMAT = {
  ...PARAMS.format,
  description:
    'Response format: json (default) or csv (RFC 4180 with a header row, the rows of data only); no key needed.',
  keyedOnly: false,
} satisfies ParamSpec;

export type ParamName = keyof typeof PARAMS;
