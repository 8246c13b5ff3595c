import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import type { ObservationInput, SeriesEntry, SourceEntry } from '../../src/model/records.ts';
import { type AppendResult, appendBatch } from '../../src/store/append-batch.ts';
import type { StoreLayout } from '../../src/store/layout.ts';

/**
 * The in-memory as_of reference model shared by test/property/as-of.test.ts (one log per run,
 * through the payload function) and test/reliability/helpers/as-of-model.ts (many cases over HTTP):
 * revision chains, their generator, how they are written to the store, and what as_of must return.
 */

export const BASE = Date.UTC(2025, 0, 1);
export const HOUR = 3_600_000;
/** The clock of the ingests: after every knowledge time of the model, before the real now. */
export const MODEL_NOW = new Date(BASE + 1000 * HOUR);
export const PERIODS = ['2024-11', '2024-12', '2025-01'] as const;

export const MODEL_SOURCE: SourceEntry = {
  id: 't',
  name: 'Test source',
  publisher: 'Test',
  url: 'https://example.org/',
  licence: 'Public domain',
  licence_url: null,
  rights: 'public_domain',
  attribution: 'Source: test',
  cadence: 'monthly',
  stale_after_days: 45,
  sample: false,
};

/** A monthly catalogue entry of the model's source. */
export function modelSeries(key: string): SeriesEntry {
  return {
    key,
    slug: key.replace('.', '-').toLowerCase(),
    name: key,
    source: 't',
    frequency: 'monthly',
    unit: 'index',
    country: null,
    region: null,
    currency: null,
    sector: null,
    seasonal_adjustment: null,
    macro: false,
    description: null,
    fred_id: null,
  };
}

/** One revision chain: values in revision order, each with its knowledge time. */
export interface Chain {
  series_key: string;
  period: string;
  revisions: Array<{ value: number; observed_at: string }>;
  /** Revisions from this index on go in the second ingest batch (the first with lateFirst). */
  split: number;
  lateFirst: boolean;
}

/** How an as_of instant is picked: on, just before or just after a knowledge time, before all, or anywhere. */
export type InstantPick =
  | { kind: 'exact' | 'just-before' | 'just-after'; index: number }
  | { kind: 'before-all' }
  | { kind: 'anywhere'; offset: number };

export const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

/**
 * 1 to 4 revisions per chain; knowledge times come from a handful of hours so that ties between
 * chains are common (one chain holds one value per instant); each value differs from the one
 * before it (a repeat is no revision) but may return to an older one. The chain arrives in two
 * batches split at `split`; with `lateFirst` the later revisions arrive first, so the earlier
 * ones must be inserted into the chain by knowledge time (late vintages, backfills).
 */
export interface ChainShape {
  hours: number[];
  steps: number[];
  start: number;
  split: number;
  lateFirst: boolean;
}

export const chainShapeArbitrary: fc.Arbitrary<ChainShape> = fc.record({
  hours: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 4 }),
  steps: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 4, maxLength: 4 }),
  start: fc.integer({ min: 0, max: 4 }),
  split: fc.integer({ min: 1, max: 4 }),
  lateFirst: fc.boolean(),
});

/** The chain a drawn shape stands for. */
export function chainOf(series_key: string, period: string, shape: ChainShape): Chain {
  const { hours, steps, start, split, lateFirst } = shape;
  let value = start;
  const revisions = [...hours]
    .sort((a, b) => a - b)
    .map((hour, i) => {
      if (i > 0) value = (value + steps[i]!) % 5;
      return { value, observed_at: iso(BASE + hour * HOUR) };
    });
  return { series_key, period, revisions, split, lateFirst };
}

/** One as_of pick, relative to a revision's observed_at, before everything, or anywhere. */
export const instantPickArbitrary: fc.Arbitrary<InstantPick> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('exact' as const, 'just-before' as const, 'just-after' as const),
    index: fc.nat(),
  }),
  fc.constant({ kind: 'before-all' as const }),
  fc.record({ kind: fc.constant('anywhere' as const), offset: fc.integer({ min: -HOUR, max: 8 * HOUR }) }),
);

/** Mostly one page; sometimes tiny pages, so that page boundaries fall inside revision chains. */
export const pageSizeArbitrary = fc.oneof(
  { arbitrary: fc.constant(10_000), weight: 2 },
  { arbitrary: fc.integer({ min: 1, max: 4 }), weight: 1 },
);

/** The as_of instant a pick stands for, given the knowledge times of the log. */
export function resolveInstant(pick: InstantPick, boundaries: readonly number[]): string {
  if (pick.kind === 'before-all') return iso(BASE - 1000);
  if (pick.kind === 'anywhere' || boundaries.length === 0)
    return iso(BASE + (pick.kind === 'anywhere' ? pick.offset : 0));
  const at = boundaries[pick.index % boundaries.length]!;
  return iso(pick.kind === 'exact' ? at : pick.kind === 'just-before' ? at - 1000 : at + 1000);
}

function toObservation(chain: Chain, i: number): ObservationInput {
  const revision = chain.revisions[i]!;
  return {
    series_key: chain.series_key,
    period: chain.period,
    value: revision.value,
    observed_at: revision.observed_at,
    observed_at_method: 'vintage',
    source_ref: `log:${chain.series_key}:${chain.period}:${i + 1}`,
    verification_status: 'verified',
    confidence: 1,
    data_class: 'official',
  };
}

/** What appendChains did: the first batch's result, and the second's with its size (null when none). */
export interface ChainsAppended {
  first: AppendResult;
  second: { result: AppendResult; observations: number } | null;
}

/**
 * Appends the log as the store would receive it: the catalogue and one part of each chain in one
 * batch, the other part in a second (ingest clocks MODEL_NOW and one second later).
 */
export async function appendChains(
  layout: StoreLayout,
  connection: DuckDBConnection,
  series: SeriesEntry[],
  chains: readonly Chain[],
): Promise<ChainsAppended> {
  const meta = (n: number) => ({
    source: 't',
    files: [],
    options: {},
    collectorVersion: 'mmds/test',
    now: new Date(MODEL_NOW.getTime() + n * 1000),
  });
  const early = (c: Chain) => c.revisions.slice(0, c.split).map((_, i) => toObservation(c, i));
  const late = (c: Chain) => c.revisions.slice(c.split).map((_, i) => toObservation(c, c.split + i));
  const first = chains.flatMap((c) => (c.lateFirst ? late(c) : early(c)));
  const second = chains.flatMap((c) => (c.lateFirst ? early(c) : late(c)));
  const appended = await appendBatch(
    layout,
    connection,
    { sources: [MODEL_SOURCE], series, observations: first, rows_read: 0, rows_skipped: 0 },
    meta(0),
  );
  if (second.length === 0) return { first: appended, second: null };
  const more = await appendBatch(
    layout,
    connection,
    { observations: second, rows_read: 0, rows_skipped: 0 },
    meta(1),
  );
  return { first: appended, second: { result: more, observations: second.length } };
}

/** A row as the model and the API both describe it (the fields as_of decides). */
export interface ModelRow {
  series_key: string;
  period: string;
  value: number;
  observed_at: string;
  revision_number: number;
  in_force: boolean;
}

/** A row as the API returns it. */
export type ApiRow = ModelRow & { id: string; supersedes_id: string | null };

/** The reference: the revisions known at as_of (all without it), the highest per period in force. */
export function expectedRows(chains: readonly Chain[], seriesKey: string, asOf: string | null): ModelRow[] {
  return chains
    .filter((chain) => chain.series_key === seriesKey)
    .sort((a, b) => (a.period < b.period ? -1 : 1))
    .flatMap((chain) => {
      const known = chain.revisions
        .map((revision, i) => ({ ...revision, revision_number: i + 1 }))
        .filter((revision) => asOf === null || revision.observed_at <= asOf);
      return known.map((revision) => ({
        series_key: seriesKey,
        period: chain.period,
        ...revision,
        in_force: revision.revision_number === known.length,
      }));
    });
}

/** The fields of API rows that the model describes. */
export const project = (rows: readonly ModelRow[]): ModelRow[] =>
  rows.map(({ series_key, period, value, observed_at, revision_number, in_force }) => ({
    series_key,
    period,
    value,
    observed_at,
    revision_number,
    in_force,
  }));
