import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listStaticRequests } from '../../../src/api/v1/static-requests.ts';
import { openSnapshotDb } from '../../../src/query/snapshot-db.ts';
import { resolveLayout } from '../../../src/store/layout.ts';
import { readCurrentId } from '../../../src/store/manifest.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { createRealSnapshot, REAL_DATA_STEPS, type SnapshotFixture } from '../../helpers/snapshot-fixture.ts';

/** The reference lists only, from the publishers' real files, published and served live. */
const REFERENCE_SOURCES = new Set(['m49', 'countries', 'tz', 'iso4217', 'mic']);
const STEPS = REAL_DATA_STEPS.filter(([source]) => REFERENCE_SOURCES.has(source!));

interface Envelope<T> {
  data: T;
  meta: Record<string, unknown>;
}

describe('reference endpoints over HTTP on the real lists', () => {
  let fixture: SnapshotFixture;
  let dataDir: string;
  let server: TestServer;

  beforeAll(async () => {
    // Ingested and published once per state of the inputs (test/helpers/fixture-cache.ts).
    fixture = await createRealSnapshot(STEPS);
    dataDir = fixture.dataDir;
    server = await startTestServer({ dataDir });
  });

  afterAll(async () => {
    await server?.close();
    fixture?.remove();
  });

  const get = (path: string) => fetch(new URL(path, server.url));

  it('answers venues?country=ZZ with the venues the MIC list files under no country', async () => {
    const response = await get('/api/v1/reference/venues?country=ZZ');
    expect(response.status).toBe(200);
    const body = (await response.json()) as Envelope<Array<{ mic: string; country: string }>>;
    expect(body.data.map((venue) => venue.mic)).toEqual(['BILT', 'XOFF', 'XXXX']);
    expect(body.data.every((venue) => venue.country === 'ZZ')).toBe(true);
    expect(body.meta.filters).toEqual({ country: 'ZZ' });
  });

  it('pre-renders venues?country=ZZ for static hosts too', async () => {
    const layout = resolveLayout(dataDir);
    const db = await openSnapshotDb(layout, readCurrentId(layout)!);
    try {
      const venues = (await listStaticRequests(db)).filter((r) => r.route.id === 'venues');
      expect(venues.map((r) => r.query.country)).toContain('ZZ');
    } finally {
      await db.close();
    }
  });

  it('still answers 400 invalid_parameter for a code neither list uses', async () => {
    const response = await get('/api/v1/reference/venues?country=QQ');
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('invalid_parameter');
    expect(body.error.message).toContain('country');
  });

  it('serves every withdrawal of HRK with its date', async () => {
    const response = await get('/api/v1/reference/currencies');
    expect(response.status).toBe(200);
    const body = (await response.json()) as Envelope<Array<Record<string, unknown>>>;
    expect(body.data.find((currency) => currency.code === 'HRK')).toMatchObject({
      current: false,
      withdrawn: '2023-01',
      withdrawals: [
        { entity: 'CROATIA', name: 'Croatian Kuna', withdrawn: '2015-06' },
        { entity: 'CROATIA', name: 'Kuna', withdrawn: '2023-01' },
      ],
    });
    expect(body.data.find((currency) => currency.code === 'CYP')).toMatchObject({ current: false });
    expect(body.data.find((currency) => currency.code === 'USD')).toMatchObject({
      current: true,
      withdrawn: null,
      withdrawals: [],
    });
  });
});
