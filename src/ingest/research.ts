import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { formatTimestamp } from '../lib/zoned-time.ts';
import type { ResearchNote } from '../model/records.ts';
import { SERIES_KEY_PATTERN, SLUG_PATTERN } from './catalog.ts';
import { InputError } from './input-error.ts';
import { createEmptyBatch, type Source } from './source.ts';
import {
  createYamlInputError,
  describeZodIssue,
  type LocatedYaml,
  parseLocatedYaml,
} from './yaml-document.ts';

/**
 * RFC 3339 and the YAML 1.1 timestamp forms: a date alone, or a date and time separated by `T`
 * or spaces, with an optional fraction and an optional zone (no zone means UTC in YAML).
 */
const TIMESTAMP_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:(?:[Tt]|[ \t]+)(\d{1,2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[ \t]*(?:[Zz]|([+-])(\d{1,2})(?::?(\d{2}))?))?)?$/;

/** Normalises a timestamp to RFC 3339 UTC with `Z` (fractions dropped); null if it is not one. */
export function normaliseTimestamp(raw: string): string | null {
  const match = TIMESTAMP_PATTERN.exec(raw.trim());
  if (!match) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', sign, oh = '0', om = '0'] = match;
  const [year, month, day, hour, minute, second, offsetHour, offsetMinute] = [y, mo, d, h, mi, s, oh, om].map(
    Number,
  ) as [number, number, number, number, number, number, number, number];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC rolls 2026-02-30 over into March; a date that does not survive the round trip is invalid.
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return null;
  if (hour > 23 || minute > 59 || second > 59 || offsetHour > 23 || offsetMinute > 59) return null;
  const offset = (sign === '-' ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  const instant = calendar.getTime() + ((hour * 60 + minute - offset) * 60 + second) * 1000;
  return formatTimestamp(new Date(instant));
}

const text = z.string().trim().min(1, 'expected a non-empty string');

const frontMatterSchema = z.strictObject({
  id: text.optional(),
  slug: z
    .string()
    .regex(SLUG_PATTERN, 'expected a slug: lowercase a-z, 0-9 and "-", at most 64 characters')
    .optional(),
  title: text,
  published_at: z
    .string('expected an RFC 3339 timestamp such as 2026-03-10T14:30:00Z')
    .refine(
      (value) => normaliseTimestamp(value) !== null,
      'expected an RFC 3339 timestamp such as 2026-03-10T14:30:00Z',
    ),
  authors: z.array(text).min(1, 'expected at least one author'),
  summary: text,
  tags: z.array(text).default([]),
  series: z
    .array(z.string().regex(SERIES_KEY_PATTERN, 'expected a series key "<source>.<native id>"'))
    .default([]),
});

/** A parsed note with what is needed to report a clash with another file at the right line. */
interface LocatedNote {
  note: ResearchNote;
  located: LocatedYaml;
}

/** Splits a note into its front matter and body; the front matter starts on file line 2. */
function splitFrontMatter(file: string, content: string): { frontMatter: string; body: string } {
  const lines = content.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') {
    throw new InputError(file, 1, 'expected YAML front matter: the file must start with a "---" line');
  }
  const end = lines.findIndex((line, index) => index > 0 && line.trimEnd() === '---');
  if (end < 0)
    throw new InputError(file, 1, 'front matter is not closed: no "---" line after the one on line 1');
  const body = lines
    .slice(end + 1)
    .join('\n')
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
  return { frontMatter: lines.slice(1, end).join('\n'), body: `${body}\n` };
}

function parseNote(file: string, content: string): LocatedNote {
  const { frontMatter, body } = splitFrontMatter(file, content);
  const located = parseLocatedYaml(file, frontMatter, 2);
  if (located.value === null || typeof located.value !== 'object' || Array.isArray(located.value)) {
    throw new InputError(file, 2, 'front matter must be a YAML mapping of fields (title, published_at, ...)');
  }
  const result = frontMatterSchema.safeParse(located.value);
  if (!result.success) {
    const issue = result.error.issues[0];
    if (!issue) throw new InputError(file, 2, 'invalid front matter');
    throw createYamlInputError(file, located, describeZodIssue(issue, located.value));
  }
  const fields = result.data;
  const id = fields.id ?? basename(file).replace(/\.md$/i, '');
  const slug = fields.slug ?? id;
  if (!SLUG_PATTERN.test(slug)) {
    throw createYamlInputError(file, located, {
      path: ['id'],
      message: `no slug given and the id "${id}" is not a valid slug (lowercase a-z, 0-9 and "-"); add a slug field`,
    });
  }
  const note: ResearchNote = {
    id,
    slug,
    title: fields.title,
    published_at: normaliseTimestamp(fields.published_at) ?? fields.published_at,
    authors: fields.authors,
    tags: fields.tags,
    summary: fields.summary,
    series: fields.series,
    body_markdown: body,
    source_ref: basename(file),
  };
  return { note, located };
}

/** Parses one research note (front matter and Markdown body); throws InputError on bad input. */
export function parseResearchNote(file: string, content: string): ResearchNote {
  return parseNote(file, content).note;
}

/** Expands directory arguments into the `*.md` files inside them, sorted by name. */
async function expandFiles(files: readonly string[]): Promise<string[]> {
  const expanded: string[] = [];
  for (const file of files) {
    if (!(await stat(file)).isDirectory()) {
      expanded.push(file);
      continue;
    }
    const names = (await readdir(file)).filter((name) => name.toLowerCase().endsWith('.md')).sort();
    if (names.length === 0) throw new InputError(file, null, 'directory holds no .md research notes');
    expanded.push(...names.map((name) => join(file, name)));
  }
  return expanded;
}

/** Research notes: Markdown files (or directories of them) with YAML front matter. */
export const researchSource: Source = {
  id: 'research',
  description: 'Research notes: Markdown files with YAML front matter, or directories of them',
  async parse(files) {
    const batch = createEmptyBatch();
    const notes: ResearchNote[] = [];
    const firstFileOf = new Map<string, string>();
    for (const file of await expandFiles(files)) {
      const { note, located } = parseNote(file, await readFile(file, 'utf8'));
      for (const field of ['id', 'slug'] as const) {
        const other = firstFileOf.get(`${field}:${note[field]}`);
        if (other !== undefined) {
          throw createYamlInputError(file, located, {
            path: [field],
            message: `duplicate ${field} "${note[field]}" (also in ${basename(other)})`,
          });
        }
        firstFileOf.set(`${field}:${note[field]}`, file);
      }
      notes.push(note);
    }
    batch.research = notes;
    batch.rows_read = notes.length;
    return batch;
  },
};
