import { describe, expect, it } from 'vitest';
import { parseRequest } from '../../../src/contract/parse-request.ts';
import { csvQuery, matchRoute, ROUTES } from '../../../src/contract/routes.ts';

/** The revisions routes in the route table: a path segment after the slug, and `shape`. */
describe('the revisions routes', () => {
  const match = (path: string) => {
    const found = matchRoute(path);
    return found && { id: found.route.id, slug: found.slug, csv: found.csv };
  };

  it('matches /macro/{slug}/revisions before and apart from /macro/{slug}, with its CSV path', () => {
    expect(match('/api/v1/macro/nonfarm-payrolls/revisions')).toEqual({
      id: 'macro-revisions',
      slug: 'nonfarm-payrolls',
      csv: false,
    });
    expect(match('/api/v1/macro/nonfarm-payrolls/revisions.csv')).toEqual({
      id: 'macro-revisions',
      slug: 'nonfarm-payrolls',
      csv: true,
    });
    expect(match('/api/v1/macro/nonfarm-payrolls')).toEqual({
      id: 'macro-series',
      slug: 'nonfarm-payrolls',
      csv: false,
    });
    expect(match('/api/v1/macro/nonfarm-payrolls.csv')?.id).toBe('macro-series');
    // A slug never holds a slash, and the suffix needs a slug before it.
    expect(match('/api/v1/macro/a/b/revisions')).toBeNull();
    expect(match('/api/v1/macro//revisions')).toBeNull();
    expect(match('/api/v1/macro/nonfarm-payrolls/revisions/')).toBeNull();
    expect(match('/api/v1/macro/revisions')).toEqual({ id: 'macro-series', slug: 'revisions', csv: false });
  });

  it('matches /observations/revisions apart from /observations', () => {
    expect(match('/api/v1/observations/revisions')).toEqual({
      id: 'observations-revisions',
      slug: null,
      csv: false,
    });
    expect(match('/api/v1/observations/revisions.csv')).toEqual({
      id: 'observations-revisions',
      slug: null,
      csv: true,
    });
    expect(match('/api/v1/observations')?.id).toBe('observations');
  });

  it('takes shape list or triangle, keyed like the history parameters, and the history parameters', () => {
    for (const id of ['macro-revisions', 'observations-revisions'] as const) {
      const route = ROUTES.find((r) => r.id === id)!;
      const slug = id === 'macro-revisions' ? 'nonfarm-payrolls' : null;
      const series = id === 'observations-revisions' ? 'series=bls.CES0000000001&' : '';
      const params = parseRequest(
        route,
        slug,
        csvQuery(new URLSearchParams(`${series}shape=triangle&from=2025&limit=5&as_of=2026-01-01T00:00:00Z`)),
      );
      expect(params.query).toMatchObject({ shape: 'triangle', from: '2025', limit: 5, format: 'csv' });
      expect(params.keyedParams).toContain('shape');
      expect(() => parseRequest(route, slug, new URLSearchParams(`${series}shape=cube`))).toThrow(
        /"shape": expected list or triangle/,
      );
      expect(route.access).toEqual({
        kind: 'scope',
        scope: id === 'macro-revisions' ? 'macro:history' : 'observations:read',
      });
    }
  });
});
