import { SERVED_COT_REPORT_TYPES } from '../../model/records.ts';
import * as js from './json-schema.ts';
import { knowledgeMethod } from './observations.ts';

/** The report types the COT schemas name: those endpoint 3 serves (model/vocabulary.ts). */
export const COT_REPORT_TYPES = SERVED_COT_REPORT_TYPES;

const count = (description: string) => js.nullable(js.integer(description));
const percent = (description: string) => js.nullable(js.number(description));

/** The COT Index of net over the n most recent reports (docs/api/cot-analytics.md). */
const cotIndex = (n: number) =>
  js.nullable(
    js.number(
      `(net - min) / (max - min) x 100 over the nets of the ${n} most recent reports up to this one (counted in reports, not calendar weeks), 0-100, 2 decimals; null until ${n} reports have a net, or when max = min (docs/api/cot-analytics.md).`,
      { minimum: 0, maximum: 100 },
    ),
  );

const CATEGORY = js.object(
  {
    long: count('Long positions (contracts).'),
    short: count('Short positions.'),
    spread: count('Spreading positions; null for categories reported without spreads.'),
    net: count('long - short; null when either is null.'),
    change_long: count('Change of long since the previous report.'),
    change_short: count('Change of short.'),
    change_spread: count('Change of spread.'),
    change_net: count('change_long - change_short.'),
    pct_oi_long: percent('Long as percent of open interest.'),
    pct_oi_short: percent('Short as percent of open interest.'),
    pct_oi_spread: percent('Spread as percent of open interest.'),
    traders_long: count('Number of traders long.'),
    traders_short: count('Number of traders short.'),
    traders_spread: count('Number of traders spreading.'),
    pct_oi_net: percent(
      'net / open_interest x 100, 2 decimals; null when either is missing or open interest is 0.',
    ),
    cot_index_26: cotIndex(26),
    cot_index_52: cotIndex(52),
    cot_index_156: cotIndex(156),
    z_score_52: js.nullable(
      js.number(
        '(net - mean) / population standard deviation over the 52 most recent reports up to this one, 4 decimals; null until 52 reports have a net, or when the deviation is 0 (docs/api/cot-analytics.md).',
      ),
    ),
  },
  'Positions of one trader category; every figure is null where the CFTC publishes none, or suppressed it (`.` in its files), never 0. The analytics (pct_oi_net, cot_index_*, z_score_52) count only reports known at as_of.',
);

/** The fields of one weekly report, public and keyed alike. */
function reportFields(): Record<string, js.JsonSchema> {
  return {
    report_date: js.date('The Tuesday the positions are dated.'),
    released_at: js.timestamp('When the CFTC published the report (what as_of filters on).'),
    released_at_method: knowledgeMethod('released_at'),
    report_type: js.oneOfText(COT_REPORT_TYPES),
    market_name: js.text('Market and exchange name as published that week.'),
    contract_units: js.nullable(js.text('Contract size as published.')),
    open_interest: count('Open interest (contracts).'),
    change_open_interest: count('Change of open interest since the previous report.'),
    traders_total: count('Total reportable traders.'),
    categories: {
      type: 'object',
      description:
        'Trader categories by name. legacy: `noncommercial`, `commercial`; disaggregated: `producer_merchant`, `swap_dealer`, `managed_money`, `other_reportable`; tff: `dealer`, `asset_manager`, `leveraged_funds`, `other_reportable`; every type also `total_reportable` and `nonreportable`.',
      additionalProperties: js.ref('CotCategory'),
    },
    concentration: js.object(
      {
        gross_top4_long: percent('Percent of open interest held long by the 4 largest traders (gross).'),
        gross_top4_short: percent('Held short by the 4 largest traders.'),
        gross_top8_long: percent('Held long by the 8 largest traders.'),
        gross_top8_short: percent('Held short by the 8 largest traders.'),
      },
      'Concentration ratios.',
    ),
    revision_number: js.integer('1 for the first record of the report, +1 per correction.', { minimum: 1 }),
  };
}

export const MARKET_FIELDS: Record<string, js.JsonSchema> = {
  slug: js.text(
    'Stable market identifier: from the first name the market was published under (a rename keeps it), `-<code>` appended where two markets would share one.',
    { pattern: '^[a-z0-9-]{1,64}$' },
  ),
  code: js.text('CFTC contract market code; consolidated markets end in `+`.', {
    pattern: '^[0-9A-Z]{5}[0-9A-Z+]$',
  }),
  name: js.text('Display name: the latest published name without the exchange, unless the catalog names it.'),
  exchange: js.nullable(js.text('Exchange name as the CFTC writes it, unless the catalog names it.')),
  mic: js.nullable(js.text('ISO 10383 MIC of the exchange, where known.', { pattern: '^[A-Z0-9]{4}$' })),
  sector: js.nullable(
    js.text('Sector id (from the CFTC commodity subgroup, or the catalog); null if none applies.'),
  ),
  report_types: js.arrayOf(
    js.oneOfText(COT_REPORT_TYPES),
    'Futures-only report types served for the market, the default first.',
  ),
  cftc_codes: js.object(
    {
      exchange: js.nullable(js.text('"CFTC Market Code in Initials" (`CMX`, `NYME`).')),
      region: js.nullable(js.text('CFTC region code.')),
      commodity: js.nullable(js.text('CFTC commodity code.')),
      subgroup: js.nullable(
        js.text('CFTC commodity subgroup (`N25`, `F85`); only in disaggregated and TFF files.'),
      ),
    },
    "The CFTC's own codes of the market, from its latest report.",
  ),
  replaces: js.arrayOf(
    js.ref('CotMarketLink'),
    'Contract lineage: the markets whose code handed over to this one, where the files show it (docs/data-sources.md, "Contract lineage"); empty for most markets.',
  ),
  replaced_by: js.arrayOf(
    js.ref('CotMarketLink'),
    'Contract lineage: the markets this code handed over to, where the files show it; empty for most markets.',
  ),
};

/** A market another one is linked to by contract lineage. */
const MARKET_LINK = js.object(
  {
    code: js.text('CFTC contract market code of the linked market.'),
    slug: js.text('Its slug (/api/v1/markets/cot/{slug}).', { pattern: '^[a-z0-9-]{1,64}$' }),
  },
  "A market linked by contract lineage: the new code's first report is the next report week after the old code's last, both carry the same CFTC commodity code, and one market name holds the other.",
);

const MARKET_NAMES = js.arrayOf(
  js.object({
    name: js.text('Market and exchange name as published.'),
    first_report: js.date('First report date published under this name.'),
    last_report: js.date('Last report date published under this name.'),
  }),
  'Every name the market was published under, oldest first.',
);

const NET_CONCENTRATION: Record<string, js.JsonSchema> = {
  net_top4_long: percent(
    "Percent of open interest held net long by the 4 largest traders (each trader's long less short).",
  ),
  net_top4_short: percent('Held net short by the 4 largest traders.'),
  net_top8_long: percent('Held net long by the 8 largest traders.'),
  net_top8_short: percent('Held net short by the 8 largest traders.'),
};

/** History view only: the net concentration ratios (cot_report_columns, docs/data-model.md). */
const CONCENTRATION_NET = js.nullable(
  js.object(
    NET_CONCENTRATION,
    'Only in the history view of /api/v1/markets/cot/{slug} (`meta.view` = `history`): the net concentration ratios (`Conc_Net_LE_4_TDR_*`, `Conc_Net_LE_8_TDR_*`). Each figure is null where the CFTC publishes none (CIT) or suppressed it, and for a report stored before these columns were read and not ingested since (docs/data-model.md, "COT report columns").',
  ),
);

const CROP_CATEGORY = js.object(
  {
    long: count('Long positions (contracts) in this crop year.'),
    short: count('Short positions.'),
    spread: count('Spreading positions; null for categories reported without spreads.'),
    net: count('long - short; null when either is null.'),
    pct_oi_long: percent("Long as percent of the crop year's open interest."),
    pct_oi_short: percent('Short as percent of open interest.'),
    pct_oi_spread: percent('Spread as percent of open interest.'),
    traders_long: count('Number of traders long.'),
    traders_short: count('Number of traders short.'),
    traders_spread: count('Number of traders spreading.'),
  },
  'Positions of one trader category in one crop year; the CFTC publishes no week-on-week changes per crop year.',
);

const CROP_YEAR = js.object(
  {
    open_interest: count("Open interest of the crop year's contracts."),
    traders_total: count('Total reportable traders in the crop year.'),
    categories: {
      type: 'object',
      description: "Trader categories by name, as in the report's `categories`.",
      additionalProperties: js.ref('CotCropCategory'),
    },
    concentration: js.object(
      {
        gross_top4_long: percent('Percent of open interest held long by the 4 largest traders (gross).'),
        gross_top4_short: percent('Held short by the 4 largest traders.'),
        gross_top8_long: percent('Held long by the 8 largest traders.'),
        gross_top8_short: percent('Held short by the 8 largest traders.'),
        ...NET_CONCENTRATION,
      },
      'Concentration ratios of the crop year, gross and net.',
    ),
  },
  "One crop year of a legacy or disaggregated report: the CFTC's `(Old)` / `_Old` and `(Other)` / `_Other` columns.",
);

/** History view only: the Old and Other crop years. */
const CROP_YEARS = js.nullable(
  js.object(
    {
      old: js.ref('CotCropYear', "The old crop year (the CFTC's `Old` columns)."),
      other: js.ref('CotCropYear', 'Every other month (the `Other` columns).'),
    },
    'Only in the history view of /api/v1/markets/cot/{slug} (`meta.view` = `history`): the crop years of a legacy or disaggregated report; null for TFF and CIT reports, and for a report stored before these columns were read and not ingested since.',
  ),
);

/** `supersedes_id`: only in the history view of endpoint 3, so not a required field of CotReport. */
const SUPERSEDES_ID = js.nullable(
  js.text(
    'Only in the history view of /api/v1/markets/cot/{slug} (`meta.view` = `history`): id of the revision this one replaced; null on revision 1.',
  ),
);

function cotReport(): js.JsonSchema {
  const report = js.object(
    reportFields(),
    'One weekly Commitments of Traders report: the revision in force. In the history view of /api/v1/markets/cot/{slug} each report also carries `concentration_net`, `crop_years` and `supersedes_id`.',
  );
  return {
    ...report,
    properties: {
      ...(report.properties as Record<string, js.JsonSchema>),
      concentration_net: CONCENTRATION_NET,
      crop_years: CROP_YEARS,
      supersedes_id: SUPERSEDES_ID,
    },
  };
}

/** Named schemas of the COT endpoints (the meta views of endpoint 3 are added below). */
export const COT_SHAPES: Record<string, js.JsonSchema> = {
  CotCategory: CATEGORY,
  CotCropCategory: CROP_CATEGORY,
  CotCropYear: CROP_YEAR,
  CotReport: cotReport(),
  CotMarket: js.object({ ...MARKET_FIELDS, names: MARKET_NAMES }, 'A futures market of the CFTC reports.'),
  CotMarketLink: MARKET_LINK,
};
