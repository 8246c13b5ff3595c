import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listStaticRequests } from '../../../src/api/v1/static-requests.ts';
import { ApiError } from '../../../src/contract/errors.ts';
import { parseRequest } from '../../../src/contract/parse-request.ts';
import { csvQuery, matchRoute, ROUTES } from '../../../src/contract/routes.ts';
import { revisionCacheUsage } from '../../../src/query/revision-cache.ts';
import { openSnapshotDb, type SnapshotDb } from '../../../src/query/snapshot-db.ts';
import { type CallerView, renderRepresentation } from '../../../src/server/represent-route.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { FIXTURE_NOW } from '../../helpers/run-cli.ts';
import { parseCsv } from '../../helpers/series-history-csv.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/**
 * `fields=` (issue 35 item 3), differentially: on the real sample snapshot, every endpoint that
 * takes it answers a fields= request with exactly its full answer with the other fields left
 * out: in JSON the same bytes as the full envelope with each row's other keys removed, in CSV
 * the full table without the other columns (a dotted column goes with its first name). Pages of
 * endpoints 5 and 8 put together from row bytes are checked cold and warm on the revision cache
 * and on DuckDB alone. Then the 400s, and the ETag: one per canonical set.
 */

const PUBLIC: CallerView = { keyed: false, cotHistory: false };
const KEYED: CallerView = { keyed: true, cotHistory: true };

interface Answer {
  body: string;
  etag: string;
  contentType: string;
  link: string | null;
}

async function render(db: SnapshotDb, target: string, view: CallerView): Promise<Answer> {
  const url = new URL(`http://host${target}`);
  const matched = matchRoute(url.pathname);
  if (!matched) throw new Error(`no route for ${target}`);
  const params = parseRequest(
    matched.route,
    matched.slug,
    matched.csv ? csvQuery(url.searchParams) : url.searchParams,
  );
  const { body, etag, contentType, link } = await renderRepresentation(
    matched.route,
    params,
    url,
    db,
    view,
    FIXTURE_NOW,
    null,
  );
  return { body: body.toString('utf8'), etag, contentType, link: link ?? null };
}

/** The refusal of a request, or null when it is answered. */
async function refusal(db: SnapshotDb, target: string, view: CallerView): Promise<ApiError | null> {
  try {
    await render(db, target, view);
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

const withFields = (target: string, names: readonly string[]) =>
  `${target}${target.includes('?') ? '&' : '?'}fields=${names.map(encodeURIComponent).join(',')}`;

/** The keys of a JSON answer's rows, in first-seen order. */
function rowKeys(body: string): string[] {
  const keys: string[] = [];
  for (const row of (JSON.parse(body) as { data: Array<Record<string, unknown>> }).data)
    for (const key of Object.keys(row)) if (!keys.includes(key)) keys.push(key);
  return keys;
}

/** The JSON envelope of `full` with each row holding only `names`, as JSON.stringify writes it. */
function projectJson(full: string, names: ReadonlySet<string>): string {
  const { data, meta } = JSON.parse(full) as { data: Array<Record<string, unknown>>; meta: unknown };
  const rows = data.map((row) => Object.fromEntries(Object.entries(row).filter(([key]) => names.has(key))));
  return JSON.stringify({ data: rows, meta });
}

const keepsColumn = (column: string, names: ReadonlySet<string>) =>
  names.has(column) || [...names].some((name) => column.startsWith(`${name}.`));

/** The table of `full` without the columns of other fields. */
function projectCsv(full: string, names: ReadonlySet<string>): string[][] {
  const [header, ...rows] = parseCsv(full);
  const kept = header!.flatMap((column, i) => (keepsColumn(column, names) ? [i] : []));
  return [header!, ...rows].map((row) => kept.map((i) => row[i]!));
}

/** The field names of a CSV header: a column's first dotted name when the JSON rows have it, else the column. */
function csvNames(header: readonly string[], jsonNames: readonly string[]): string[] {
  const names: string[] = [];
  for (const column of header) {
    const first = column.split('.')[0]!;
    const name = jsonNames.includes(first) ? first : column;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** A Link header without its fields parameter, and that parameter. */
function withoutFields(link: string | null): { link: string | null; fields: string | null } {
  if (link === null) return { link, fields: null };
  const url = new URL(`http://host${/^<([^>]+)>/.exec(link)![1]!}`);
  const fields = url.searchParams.get('fields');
  url.searchParams.delete('fields');
  const cursor = url.searchParams.get('cursor')!;
  url.searchParams.delete('cursor');
  url.searchParams.set('cursor', cursor);
  return { link: `<${url.pathname}${url.search}>; rel="next"`, fields };
}

/** Subsets of a row's names worth asking for: the first, every other one (asked in reverse), the last two, all. */
function subsetsOf(names: readonly string[]): string[][] {
  const alternate = names.filter((_, i) => i % 2 === 1).reverse();
  return [[names[0]!], alternate.length ? alternate : [names[0]!], names.slice(-2), [...names]];
}

describe('fields= on every endpoint that answers rows', () => {
  let fixture: SnapshotFixture;
  let plain: SnapshotDb;
  let cached: SnapshotDb;
  let targets: Array<{ target: string; view: CallerView; csv: boolean }>;

  beforeAll(async () => {
    fixture = await createSampleSnapshot({ licensed: true });
    const layout = resolveLayout(fixture.dataDir);
    plain = await openSnapshotDb(layout, fixture.snapshotId, { revisionCacheBytes: 0 });
    cached = await openSnapshotDb(layout, fixture.snapshotId);
    const requests = await listStaticRequests(plain);
    const history = requests.find((r) => r.route.id === 'series-history')!.slug!;
    const macro = 'nonfarm-payrolls';
    const json = (target: string, view: CallerView = KEYED) => ({ target, view, csv: false });
    const both = (target: string, view: CallerView = KEYED) => [
      { target, view, csv: false },
      { target: `${target}${target.includes('?') ? '&' : '?'}format=csv`, view, csv: true },
    ];
    targets = [
      ...both('/api/v1/observations?series=ecb.USD&limit=5'),
      ...both('/api/v1/observations?series=bls.CES0000000001&as_of=2026-01-01T00:00:00Z&limit=4'),
      ...both('/api/v1/observations?series=testvendor.PAYEMS&from=2025-01&limit=3'),
      ...both('/api/v1/observations?series=bls.CES0000000001&units=pch&limit=3'),
      ...both('/api/v1/observations?series=bls.CES0000000001&sort_order=desc&limit=3'),
      ...both('/api/v1/observations?series=bls.CES0000000001&vintage_dates=2025-09-01,2026-11-01&from=2025'),
      ...both('/api/v1/observations/revisions?series=bls.CES0000000001&from=2025-01&limit=4'),
      ...both('/api/v1/observations/revisions?series=bls.CES0000000001&from=2025-01&shape=triangle'),
      ...both('/api/v1/observations/aligned?series=ecb.USD,ecb.GBP&frequency=m'),
      ...both(`/api/v1/macro/${macro}?limit=4`),
      ...both(`/api/v1/macro/${macro}?output_type=4&realtime_start=1776-07-04&realtime_end=9999-12-31`),
      ...both(`/api/v1/macro/${macro}/revisions?from=2025-06`),
      ...both(`/api/v1/series/${history}`, PUBLIC),
      ...both(`/api/v1/series/${history}?sort_order=desc&limit=3`, PUBLIC),
      json(`/api/v1/series/${macro}/vintagedates`),
      ...both('/api/v1/markets/cot/gold', PUBLIC),
      ...both('/api/v1/markets/cot/gold?limit=3'),
      json('/api/v1/markets/cot/reports', PUBLIC),
      json('/api/v1/fx/ecb', PUBLIC),
      json('/api/v1/fx/ecb?from=2026-03-07&to=2026-03-20&base=USD&symbols=GBP,JPY', PUBLIC),
      json('/api/v1/fx/ecb/2026-03-02..2026-03-13', PUBLIC),
    ];
  });

  afterAll(async () => {
    await plain?.close();
    await cached?.close();
    fixture?.remove();
  });

  it('gives the full answer without the other fields, JSON and CSV, on the cache and on DuckDB', async () => {
    const covered = new Set<string>();
    for (const { target, view, csv } of targets) {
      const full = await render(plain, target, view);
      const jsonFull = csv ? await render(plain, target.replace(/[?&]format=csv$/, ''), view) : full;
      const jsonNames = rowKeys(jsonFull.body);
      const names = csv ? csvNames(parseCsv(full.body)[0]!, jsonNames) : jsonNames;
      expect(names.length, target).toBeGreaterThan(0);
      for (const subset of subsetsOf(names)) {
        const asked = withFields(target, subset);
        const set = new Set(subset);
        for (const [db, round] of [
          [plain, 'plain'],
          [cached, 'cold'],
          [cached, 'warm'],
        ] as const) {
          const selected = await render(db, asked, view);
          expect(selected.contentType, `${asked} ${round}`).toBe(full.contentType);
          if (csv) expect(parseCsv(selected.body), `${asked} ${round}`).toEqual(projectCsv(full.body, set));
          else expect(selected.body, `${asked} ${round}`).toBe(projectJson(full.body, set));
          // The next page keeps the fields: the Link is the full answer's with them.
          expect(withoutFields(selected.link), `${asked} ${round}`).toEqual({
            link: full.link,
            fields: full.link && subset.join(','),
          });
        }
      }
      covered.add(matchRoute(new URL(`http://host${target}`).pathname)!.route.id);
    }
    // The row bytes were cut into fields (the series pages of the cached database).
    expect(revisionCacheUsage(cached).entries).toBeGreaterThan(2);
    // Every route that takes fields= was asked, but the change feed (one snapshot: no rows; below).
    const taking = ROUTES.filter((route) => route.query.includes('fields')).map((route) => route.id);
    expect([...covered, 'changes'].sort()).toEqual([...taking].sort());
  }, 300_000);

  it('selects any subset of a series page alike from the row bytes and from DuckDB', async () => {
    const target = '/api/v1/observations?series=bls.CES0000000001&from=2025-01&limit=6';
    const full = await render(plain, target, KEYED);
    const names = rowKeys(full.body);
    const csvFull = await render(plain, `${target}&format=csv`, KEYED);
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(names, { minLength: 1 }), fc.boolean(), async (subset, csv) => {
        const asked = withFields(csv ? `${target}&format=csv` : target, subset);
        const [fromDuckDb, fromBytes] = [
          await render(plain, asked, KEYED),
          await render(cached, asked, KEYED),
        ];
        expect(fromBytes.body).toBe(fromDuckDb.body);
        const set = new Set(subset);
        if (csv) expect(parseCsv(fromBytes.body)).toEqual(projectCsv(csvFull.body, set));
        else expect(fromBytes.body).toBe(projectJson(full.body, set));
      }),
      { numRuns: 40 },
    );
  });

  it('keeps the header of an empty answer to the selected columns', async () => {
    for (const db of [plain, cached]) {
      const empty = await render(
        db,
        '/api/v1/observations.csv?series=ecb.USD&from=1900&to=1900&fields=value,period,in_force',
        KEYED,
      );
      expect(empty.body).toBe('period,value,in_force\r\n');
      const feed = await render(
        db,
        `/api/v1/changes?since=${fixture.snapshotId}&fields=key&format=csv`,
        PUBLIC,
      );
      expect(feed.body).toBe('key\r\n');
    }
  });

  it('refuses an unknown name listing the valid ones, a repeated name and an empty list', async () => {
    const target = '/api/v1/observations?series=ecb.USD&limit=2';
    const names = rowKeys((await render(plain, target, KEYED)).body);
    for (const db of [plain, cached]) {
      const unknown = await refusal(db, `${target}&fields=period,valeu`, KEYED);
      expect(unknown?.code).toBe('invalid_parameter');
      expect(unknown?.message).toContain('"fields"');
      expect(unknown?.message).toContain('valeu');
      for (const name of names) expect(unknown?.message).toContain(name);
    }
    // A name of another view's rows is unknown to this one (transformed rows have no id).
    const other = await refusal(plain, '/api/v1/observations?series=ecb.USD&units=pch&fields=id', KEYED);
    expect(other?.message).toContain('level');
    // CSV names are the header's: the aligned columns are the series keys, not `values`.
    const aligned = '/api/v1/observations/aligned.csv?series=ecb.USD,ecb.GBP&frequency=m';
    expect((await refusal(plain, `${aligned}&fields=values`, KEYED))?.message).toContain('ecb.GBP');
    expect((await render(plain, `${aligned}&fields=ecb.GBP`, KEYED)).body.split('\r\n')[0]).toBe('ecb.GBP');
    for (const bad of ['period,period', '', 'period,,value', ',value', 'period,value,', 'a b']) {
      const refused = await refusal(plain, `${target}&fields=${encodeURIComponent(bad)}`, KEYED);
      expect(refused?.code, bad).toBe('invalid_parameter');
      expect(refused?.message, bad).toContain('"fields"');
    }
  });

  it('gives one ETag per canonical set: the same in any order, another for another set', async () => {
    for (const [target, view, names] of [
      ['/api/v1/observations?series=ecb.USD&limit=5', KEYED, ['period', 'value', 'observed_at']],
      ['/api/v1/observations?series=ecb.USD&limit=5&format=csv', KEYED, ['period', 'value', 'in_force']],
      ['/api/v1/observations?series=ecb.USD&units=pch&limit=5', KEYED, ['period', 'value', 'level']],
      ['/api/v1/markets/cot/gold', PUBLIC, ['report_date', 'open_interest', 'categories']],
      ['/api/v1/fx/ecb?currency=USD', PUBLIC, ['currency', 'rate', 'date']],
    ] as const) {
      for (const db of [plain, cached]) {
        const full = await render(db, target, view);
        const ab = await render(db, withFields(target, names), view);
        const ba = await render(db, withFields(target, [...names].reverse()), view);
        const fewer = await render(db, withFields(target, names.slice(1)), view);
        expect(ba.body, target).toBe(ab.body);
        expect(ba.etag, target).toBe(ab.etag);
        expect(new Set([full.etag, ab.etag, fewer.etag]).size, target).toBe(3);
      }
    }
  });
});
