import { TABLES } from '../../store/tables.ts';
import { createEnvelope } from './envelope.ts';
import * as js from './json-schema.ts';

/** The reference and catalog tables whose change the feed reports (by their manifest sha256). */
export const CHANGES_REFERENCE_TABLES: readonly string[] = TABLES.filter((t) => t.kind === 'reference').map(
  (t) => t.name,
);

/** One changed series or COT report series (docs/api/changes.md). */
export const CHANGES_ITEM: js.JsonSchema = js.object({
  kind: js.oneOfText(
    ['series', 'market'],
    '`series`: observations of a series; `market`: COT reports of a market.',
  ),
  key: js.text('Series key (bls.CES0000000001) or COT report series key.'),
  slug: js.nullable(
    js.text('Series slug (catalogued series) or COT market slug; null when the catalog has none.'),
  ),
  name: js.nullable(js.text('Series or market name; null when the catalog has none.')),
  source: js.text('Catalog source id.'),
  report_type: js.nullable(
    js.text('COT report type the market is served under (legacy, tff_combined ...); null for series.'),
  ),
  new_observations: js.integer('Periods that had no value in `since` and have one now.', { minimum: 0 }),
  revisions: js.integer('Periods that had a value in `since` whose value in force is a newer revision now.', {
    minimum: 0,
  }),
  backfilled: js.integer(
    'Periods whose value in force is unchanged but whose revision history gained records (an older vintage arriving late): only as_of answers change.',
    { minimum: 0 },
  ),
  period_start: js.period('First period touched (of the three counts).'),
  period_end: js.period('Last period touched.'),
});

const SNAPSHOT_REF = (what: string) =>
  js.object({
    id: js.text(`Snapshot id of ${what}.`),
    created_at: js.timestamp(`When ${what} was published.`),
  });

/** Endpoint 22: the change feed. */
export const CHANGES_BODY: js.JsonSchema = createEnvelope(
  js.arrayOf(CHANGES_ITEM, 'Changed series and markets, series first, each by key.'),
  {
    since: SNAPSHOT_REF('the snapshot asked about'),
    current: SNAPSHOT_REF('the snapshot in service (ask again later with since = this id)'),
    view: js.oneOfText(
      ['public', 'keyed'],
      '`public`: redistributable sources only; `keyed` (a key with observations:read): every source.',
    ),
    method: js.oneOfText(
      ['batches', 'full'],
      '`batches`: only the periods with records of the batches ingested after `since` were compared; `full`: every period was compared (the store was rebuilt since).',
    ),
    new_batches: js.integer(
      'Ingest batches the current snapshot holds that `since` did not (0 for method full).',
      {
        minimum: 0,
      },
    ),
    reference_tables: js.arrayOf(
      js.oneOfText(CHANGES_REFERENCE_TABLES),
      'Reference and catalog tables whose content differs (their sha256 in the two manifests): reload these lists.',
    ),
  },
);
