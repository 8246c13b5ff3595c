import { SERVED_COT_REPORT_TYPES } from '../../model/records.ts';
import { createEnvelope, SINGLE_SOURCE_TERMS } from './envelope.ts';
import * as js from './json-schema.ts';

/** Endpoint 25: every market's report of one date and report type. */
export const COT_REPORTS_BODY = createEnvelope(
  js.arrayOf(
    js.object({
      slug: js.text('The market slug (/api/v1/markets/cot/{slug}).', { pattern: '^[a-z0-9-]{1,64}$' }),
      code: js.text("CFTC contract market code (Socrata's cftc_contract_market_code)."),
      exchange: js.nullable(js.text('Exchange name as the CFTC writes it, unless the catalog names it.')),
      mic: js.nullable(js.text('ISO 10383 MIC of the exchange, where known.', { pattern: '^[A-Z0-9]{4}$' })),
      sector: js.nullable(js.text('Sector id; null if none applies.')),
      report: js.ref('CotReport', "The market's report of the date, as /api/v1/markets/cot/{slug} gives it."),
    }),
    'One row per market reported on the date in the report type, by slug; empty when none was.',
  ),
  {
    report_date: js.nullable(
      js.date('The report date of every row: report_date, or the newest of the report type.'),
    ),
    requested_date: js.nullable(js.date('The report_date asked for; null: the newest.')),
    report_type: js.oneOfText(SERVED_COT_REPORT_TYPES, 'The report type of every row.'),
    ...SINGLE_SOURCE_TERMS,
  },
);
