import { COT_REPORT_TYPES, COT_SHAPES, MARKET_FIELDS } from './cot-shapes.ts';
import { createMeta, createTaggedEnvelope, SINGLE_SOURCE_TERMS } from './envelope.ts';
import * as js from './json-schema.ts';

/** Endpoint 2: every market ever reported, its report dates and its latest report across report types. */
export const COT_SUMMARY_DATA: js.JsonSchema = js.arrayOf(
  js.object({
    ...MARKET_FIELDS,
    first_report: js.date(
      'First report date of the market in the snapshot, in any report type (market metadata: the reports before the latest 12 need a cot:history key).',
    ),
    last_report: js.date('Last report date of the market in the snapshot, in any report type.'),
    active: js.boolean(
      'Reported in the latest report date the snapshot holds for one of its report types (each type is its own family: legacy, disaggregated, TFF, futures-and-options, CIT); false for a market the CFTC no longer reports.',
    ),
    latest: js.ref('CotReport', 'The newest report across the report types (on a tie, the default type).'),
  }),
  'Every market ever reported in the snapshot, active or not, by slug.',
);

/** Endpoint 2 meta. */
export const COT_SUMMARY_META: Record<string, js.JsonSchema> = SINGLE_SOURCE_TERMS;

function window(fullHistory: boolean, description: string): js.JsonSchema {
  return js.object(
    {
      reports: js.integer('Reports in data (fewer than limit when the market has fewer).', { minimum: 0 }),
      limit: js.integer(
        fullHistory ? 'The page size asked for (default 1000).' : 'Always 12: the latest 12 reports at most.',
        { minimum: 1 },
      ),
      from: js.nullable(js.date('First report date shown.')),
      to: js.nullable(js.date('Last report date shown.')),
      full_history: { type: 'boolean', const: fullHistory },
    },
    description,
  );
}

/** The values of `meta.view` of endpoint 3, with the named schema of each view's meta. */
export const COT_MARKET_VIEWS = {
  latest: 'CotMarketLatestMeta',
  history: 'CotMarketHistoryMeta',
} as const;

const view = (value: keyof typeof COT_MARKET_VIEWS, description: string): js.JsonSchema => ({
  type: 'string',
  const: value,
  description,
});

const MARKET_META: Record<string, js.JsonSchema> = {
  market: js.ref('CotMarket'),
  report_type: js.oneOfText(COT_REPORT_TYPES, 'The report type shown.'),
};

/** Endpoint 3 without a cot:history key: the latest 12 reports, oldest first. */
const COT_MARKET_LATEST_META = createMeta(
  true,
  {
    view: view(
      'latest',
      'Which view this is (the discriminator of `meta`): `latest`, the 12 most recent reports, answered without a cot:history key.',
    ),
    ...MARKET_META,
    window: window(false, 'What an anonymous caller sees: the latest 12 reports (or all, if fewer).'),
    ...SINGLE_SOURCE_TERMS,
  },
  '`meta` of /api/v1/markets/cot/{slug} without a cot:history key (`view` = `latest`).',
);

/** Endpoint 3 with a cot:history key: every report, one per date, oldest first, paged. */
const COT_MARKET_HISTORY_META = createMeta(
  true,
  {
    view: view(
      'history',
      'Which view this is (the discriminator of `meta`): `history`, the full history paged, answered to a key holding cot:history; each report carries `supersedes_id`.',
    ),
    ...MARKET_META,
    window: window(true, 'What this page covers.'),
    as_of: js.nullable(js.timestamp('The as_of asked for.')),
    filters: js.object(
      { from: js.nullable(js.text()), to: js.nullable(js.text()) },
      'from and to as asked for.',
    ),
    sort_order: js.oneOfText(['asc', 'desc'], 'Row order: asc oldest report first, desc newest first.'),
    next_cursor: js.nullable(js.text('Cursor of the next page; null on the last page.')),
    ...SINGLE_SOURCE_TERMS,
  },
  '`meta` of /api/v1/markets/cot/{slug} with a cot:history key (`view` = `history`).',
);

/** Named schemas of the COT endpoints. */
export const COT_COMPONENTS: Record<string, js.JsonSchema> = {
  ...COT_SHAPES,
  [COT_MARKET_VIEWS.latest]: COT_MARKET_LATEST_META,
  [COT_MARKET_VIEWS.history]: COT_MARKET_HISTORY_META,
};

/**
 * Endpoint 3: one body, two views told apart by `meta.view` (an OpenAPI discriminator). The
 * reports are CotReport in both; the history view adds `supersedes_id` to each.
 */
export const COT_MARKET_BODY: js.JsonSchema = createTaggedEnvelope(
  js.arrayOf(js.ref('CotReport'), 'The reports, oldest first.'),
  'view',
  COT_MARKET_VIEWS,
  {
    description:
      'Without a cot:history key: the 12 most recent reports (`meta.view` = `latest`). With one: the full history, paged (`meta.view` = `history`).',
  },
);
