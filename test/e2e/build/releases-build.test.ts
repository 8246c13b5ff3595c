import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUILD_MANIFEST_FILE, type BuildManifest } from '../../../src/build/build-manifest.ts';
import { FIXTURE_NOW } from '../../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../../helpers/server-fixture.ts';
import { type SharedSampleFixture, useSharedSample } from '../../helpers/shared-sample-build.ts';

const ICS_TYPE = 'text/calendar; charset=utf-8';
const SOURCES = ['bls', 'cftc', 'ecb'];

/**
 * `mmds build` pre-renders the release calendar (unfiltered and per source, JSON and iCalendar),
 * the /releases/ page and the next release on the macro series pages; the server answers the
 * built files, and renders other filters with the same rows.
 */
describe('mmds build writes the release calendar', () => {
  let fixture: SharedSampleFixture;
  let distDir: string;
  let manifest: BuildManifest;
  let server: TestServer;
  const readDist = (file: string) => readFileSync(join(distDir, file), 'utf8');

  beforeAll(async () => {
    // The shared build of the sample (test/helpers/shared-sample-build.ts): this test only reads dist/.
    fixture = await useSharedSample();
    distDir = fixture.distDir;
    manifest = JSON.parse(readDist(BUILD_MANIFEST_FILE)) as BuildManifest;
    // The server's clock at the build's: its live renders match the built files.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(FIXTURE_NOW);
    server = await startTestServer({ dataDir: fixture.dataDir, distDir, anonymousLimit: 10_000 });
  });

  afterAll(async () => {
    vi.useRealTimers();
    await server?.close();
    fixture?.remove();
  });

  it('writes the unfiltered and per-source files, JSON and iCalendar, with their types', () => {
    const described = new Map(manifest.files.map((f) => [f.file, f]));
    expect(described.get('/api/v1/releases/index.json')?.content_type).toMatch(/^application\/json/);
    expect(described.get('/api/v1/releases/index.ics')?.content_type).toBe(ICS_TYPE);
    for (const source of SOURCES) {
      expect(described.get(`/api/v1/releases/_by/source/${source}.json`)).toBeDefined();
      expect(described.get(`/api/v1/releases/_by/source/${source}.ics`)?.content_type).toBe(ICS_TYPE);
    }
    const json = JSON.parse(readDist('api/v1/releases/_by/source/cftc.json')) as {
      data: { id: string; scheduled_at: string | null }[];
    };
    const ics = new ICAL.Component(ICAL.parse(readDist('api/v1/releases/_by/source/cftc.ics')));
    expect(ics.getAllSubcomponents('vevent').map((v) => new ICAL.Event(v).uid)).toEqual(
      json.data.map((row) => `${row.id}@mmds`),
    );
    // Built at 2026-11-23: the Thanksgiving week's report is scheduled on Monday 2026-11-30.
    expect(json.data.some((row) => row.scheduled_at === '2026-11-30T20:30:00Z')).toBe(true);
    // The file's block of `_headers`: its path, then its fields up to the blank line.
    const block = readDist('_headers')
      .split('\n\n')
      .find((entry) => entry.startsWith('/api/v1/releases/index.ics\n'));
    expect(block).toContain('\n  Cache-Control: public, max-age=300');
    expect(block).toContain(`\n  Content-Type: ${ICS_TYPE}`);
    // Static hosts rewrite the request paths to the files, by query.
    const redirects = readDist('_redirects');
    expect(redirects).toContain(
      '/api/v1/releases.ics  source=cftc  /api/v1/releases/_by/source/cftc.ics  200',
    );
    expect(redirects).toContain('/api/v1/releases.ics  /api/v1/releases/index.ics  200');
  });

  it('serves the built files, and renders other filters with the same rows', async () => {
    const built = await fetch(`${server.url}/api/v1/releases.ics?source=cftc`);
    expect(built.status).toBe(200);
    expect(built.headers.get('content-type')).toBe(ICS_TYPE);
    expect(await built.text()).toBe(readDist('api/v1/releases/_by/source/cftc.ics'));
    const rendered = await fetch(`${server.url}/api/v1/releases?source=cftc&from=2026-08-23`);
    const file = JSON.parse(readDist('api/v1/releases/_by/source/cftc.json')) as { data: unknown[] };
    expect(((await rendered.json()) as { data: unknown[] }).data).toEqual(file.data);
  });

  it('has a release calendar page and the next release on the macro series pages', () => {
    const page = readDist('releases/index.html');
    expect(page).toContain('href="/api/v1/releases.ics"');
    expect(page).toContain('Commitments of Traders');
    expect(page).toContain('2026-11-30 20:30 UTC');
    // The status page labels where each next release comes from.
    const status = readDist('status/index.html');
    expect(status).toContain('(calendar)');
    expect(status).toContain('href="/releases/"');
    const macro = readDist('macro/nonfarm-payrolls/index.html');
    // The period and instants sit in no-wrap spans (the phone layout): compared as text.
    expect(macro.replace(/<[^>]*>/g, '')).toContain(
      'Next release: Employment Situation for 2026-11, 2026-12-04 13:30 UTC (2026-12-04 08:30 America/New_York)',
    );
  });
});
