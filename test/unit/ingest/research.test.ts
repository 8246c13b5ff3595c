import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCatalogFile } from '../../../src/ingest/catalog.ts';
import type { InputError } from '../../../src/ingest/input-error.ts';
import { normaliseTimestamp, researchSource } from '../../../src/ingest/research.ts';
import { createIngestFixture, expectInputError } from '../../helpers/ingest-fixture.ts';
import { REPO_ROOT, SAMPLE_DATA } from '../../helpers/paths.ts';

const NOTES_DIR = join(SAMPLE_DATA, 'research');
const CATALOG = join(REPO_ROOT, 'data', 'catalog', 'catalog.yaml');
/** The notes' opening paragraph (wrapped over two lines in the files). */
const DISCLAIMER =
  "Every figure below was read from the publishers' files this service ships (data/sample); not investment research.";

const fixture = createIngestFixture('research-test-');

const { context } = fixture;

let counter = 0;
/** Writes a note into its own temp directory, so that file names never clash between tests. */
function writeNote(name: string, content: string): string {
  return fixture.writeTemp(join(String(counter++), name), content);
}

function note(frontMatter: string, body = `${DISCLAIMER}\n`): string {
  return `---\n${frontMatter}\n---\n${body}`;
}

const VALID = [
  'title: A note',
  'published_at: 2026-03-10T14:30:00Z',
  'authors: [Someone]',
  'summary: One line.',
].join('\n');

async function parseError(files: string[]): Promise<InputError> {
  return expectInputError(researchSource.parse(files, context()));
}

describe('research notes: the shipped notes', () => {
  it('parses all three notes from the directory, sorted by file name', async () => {
    const batch = await researchSource.parse([NOTES_DIR], context());
    const notes = batch.research ?? [];
    expect(batch.rows_read).toBe(3);
    expect(batch.rows_skipped).toBe(0);
    expect(notes.map((n) => n.source_ref)).toEqual([
      'eur-usd-rate-differentials.md',
      'gold-positioning-vs-trend.md',
      'payroll-revisions-2026-benchmark.md',
    ]);
    for (const n of notes) {
      // The notes are about real data: no note is tagged as sample data any more.
      expect(n.tags.length).toBeGreaterThan(0);
      expect(n.tags).not.toContain('sample');
      const firstParagraph = n.body_markdown.split('\n\n')[0]!.replace(/\s+/g, ' ');
      expect(firstParagraph).toBe(DISCLAIMER);
      expect(n.published_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(n.authors.length).toBeGreaterThan(0);
      expect(n.series.length).toBeGreaterThan(0);
    }
  });

  it('reads the fields of one note, and defaults id and slug from the file name', async () => {
    const batch = await researchSource.parse([NOTES_DIR], context());
    const [eurUsd, gold, payrolls] = batch.research ?? [];
    expect(gold?.id).toBe('gold-positioning-vs-trend');
    expect(gold?.slug).toBe('gold-positioning-vs-price-trend');
    expect(gold?.published_at).toBe('2025-03-17T09:00:00Z');
    expect(gold?.series).toEqual(['cftc.088691.legacy', 'cftc.088691.disaggregated']);
    expect(eurUsd?.series).toContain('ecb.USD');
    expect(payrolls?.id).toBe('payroll-revisions-2026-benchmark');
    expect(payrolls?.slug).toBe('payroll-revisions-2026-benchmark');
    expect(payrolls?.body_markdown).toContain('| 2026-05 | 172 | 129 | 63 | -109 |');
  });

  it('names only series the catalog knows (catalog series or COT report series of catalog markets)', async () => {
    const catalog = await readCatalogFile(CATALOG);
    const known = new Set(catalog.series.map((s) => s.key));
    for (const market of catalog.markets) {
      for (const type of market.report_types) known.add(`cftc.${market.code}.${type}`);
    }
    const batch = await researchSource.parse([NOTES_DIR], context());
    for (const n of batch.research ?? []) {
      for (const key of n.series) expect(known.has(key), `${n.id}: ${key}`).toBe(true);
    }
  });
});

describe('research notes: front matter values', () => {
  it('normalises YAML timestamps to RFC 3339 UTC', () => {
    expect(normaliseTimestamp('2026-03-10T14:30:00Z')).toBe('2026-03-10T14:30:00Z');
    expect(normaliseTimestamp('2026-03-10')).toBe('2026-03-10T00:00:00Z');
    expect(normaliseTimestamp('2026-03-10 14:30:00')).toBe('2026-03-10T14:30:00Z');
    expect(normaliseTimestamp('2026-03-10 14:30:00 +01:00')).toBe('2026-03-10T13:30:00Z');
    expect(normaliseTimestamp('2026-03-10T00:30:00.25-05:00')).toBe('2026-03-10T05:30:00Z');
    expect(normaliseTimestamp('2026-02-30')).toBeNull();
    expect(normaliseTimestamp('10 March 2026')).toBeNull();
  });

  it('accepts CRLF line endings and a YAML timestamp in published_at', async () => {
    const content = note(
      VALID.replace('2026-03-10T14:30:00Z', '2026-03-10 14:30:00 +01:00'),
      '\nBody.\n',
    ).replace(/\n/g, '\r\n');
    const batch = await researchSource.parse([writeNote('crlf.md', content)], context());
    const [parsed] = batch.research ?? [];
    expect(parsed?.published_at).toBe('2026-03-10T13:30:00Z');
    expect(parsed?.body_markdown).toBe('Body.\n');
    expect(parsed?.id).toBe('crlf');
    expect(parsed?.tags).toEqual([]);
  });
});

describe('research notes: bad input', () => {
  it('refuses a file without front matter', async () => {
    const error = await parseError([writeNote('plain.md', '# Just Markdown\n')]);
    expect(error.message).toBe(
      'plain.md:1: expected YAML front matter: the file must start with a "---" line',
    );
  });

  it('refuses unterminated front matter', async () => {
    const error = await parseError([writeNote('open.md', `---\n${VALID}\n\nBody.\n`)]);
    expect(error.line).toBe(1);
    expect(error.message).toMatch(/^open\.md:1: front matter is not closed/);
  });

  it('refuses invalid YAML and gives the line within the file', async () => {
    const error = await parseError([
      writeNote('broken.md', note(VALID.replace('One line.', 'Note: a colon'))),
    ]);
    expect(error.line).toBe(5);
    expect(error.message).toBe(
      'broken.md:5: invalid YAML: Nested mappings are not allowed in compact mappings',
    );
  });

  it('names a missing field', async () => {
    const error = await parseError([writeNote('untitled.md', note(VALID.replace('title: A note\n', '')))]);
    expect(error.message).toBe('untitled.md:2: title: required field missing');
  });

  it('names a wrong-typed field at its line', async () => {
    const error = await parseError([writeNote('authors.md', note(VALID.replace('[Someone]', 'Someone')))]);
    expect(error.message).toBe('authors.md:4: authors: expected array, received string');
  });

  it('refuses a timestamp that is not one', async () => {
    const error = await parseError([
      writeNote('when.md', note(VALID.replace('2026-03-10T14:30:00Z', 'March 2026'))),
    ]);
    expect(error.message).toMatch(/^when\.md:3: published_at: expected an RFC 3339 timestamp/);
  });

  it('refuses a bad slug, a bad series key and an unknown field', async () => {
    const slug = await parseError([writeNote('slug.md', note(`${VALID}\nslug: Not_A_Slug`))]);
    expect(slug.message).toMatch(/^slug\.md:6: slug: expected a slug/);
    const series = await parseError([
      writeNote('series.md', note(`${VALID}\nseries:\n  - ecb.USD\n  - USD`)),
    ]);
    expect(series.message).toBe('series.md:8: series[1]: expected a series key "<source>.<native id>"');
    const extra = await parseError([writeNote('extra.md', note(`${VALID}\nauthor: Someone`))]);
    expect(extra.message).toBe('extra.md:6: author: unknown field');
  });

  it('refuses a file name that cannot serve as the default slug', async () => {
    const error = await parseError([writeNote('My Note.md', note(VALID))]);
    expect(error.message).toMatch(
      /^My Note\.md:2: id: no slug given and the id "My Note" is not a valid slug/,
    );
  });

  it('refuses a duplicate id across the files given', async () => {
    const first = writeNote('first.md', note(`id: same\n${VALID}`));
    const second = writeNote('second.md', note(`${VALID}\nid: same`));
    const error = await parseError([first, second]);
    expect(error.message).toBe('second.md:6: id: duplicate id "same" (also in first.md)');
  });

  it('refuses a directory without notes', async () => {
    const empty = join(fixture.dir, 'empty');
    mkdirSync(empty);
    const error = await parseError([empty]);
    expect(error.message).toBe('empty: directory holds no .md research notes');
  });
});
