import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { z } from 'zod';
import { readCsvFile } from '../../src/db/duckdb.ts';
import { apiResponseSchema, apiStatusSchema } from '../../src/ingest/bls-api.ts';
import {
  type BlsKnowledgeContext,
  blsNeedsCollection,
  resolveBlsKnowledge,
} from '../../src/ingest/bls-knowledge-time.ts';
import { InputError } from '../../src/ingest/input-error.ts';
import { type LocatedObservation, sortLocatedObservations } from '../../src/ingest/located-observations.ts';
import {
  convertBlsPeriod,
  formatMonthPeriod,
  isMonthPeriod,
  parseIsoDate,
} from '../../src/ingest/periods.ts';
import { createEmptyBatch, type IngestContext, type Source } from '../../src/ingest/source.ts';
import { validateJson } from '../../src/ingest/validate-json.ts';
import { cleanText, parseNumber } from '../../src/ingest/values.ts';
import { zonedTimeToUtc } from '../../src/lib/zoned-time.ts';
import type { ObservationInput, RecordBatch } from '../../src/model/records.ts';

/** Period codes that are not periods of the series itself: M13 annual average, S01/S02 half-years. */
const SKIPPED_PERIODS = new Set(['M13', 'S01', 'S02']);
const CPI_HEADER = 'Date,Index,Inflation';
const CPI_SERIES_KEY = 'bls.CUUR0000SA0';
/** The Employment Situation is released at 08:30 Eastern. */
const RELEASE_TIME = '08:30';
const RELEASE_ZONE = 'America/New_York';

// The API response's shape is checked by the parser's own schemas (that check did not move).

const vintageSchema = z.object({
  dataset_id: z.string(),
  series_id: z.string().regex(/^[A-Z0-9]+$/, 'expected a BLS series id'),
  records: z.array(
    z.object({
      observation_month: z.string().refine(isMonthPeriod, 'expected YYYY-MM'),
      release_date: z.string().refine((text) => parseIsoDate(text) !== null, 'expected a date YYYY-MM-DD'),
      revision_stage: z.string(),
      value_thousands: z.number().nullable(),
      source_document_id: z.string().min(1),
    }),
  ),
});

interface FileContext {
  file: string;
  knowledge: BlsKnowledgeContext;
  batch: RecordBatch;
  out: LocatedObservation[];
}

/**
 * The former JavaScript BLS parser, kept as a test oracle for src/ingest/bls.ts. BLS data: Public Data API v2 JSON responses, the third-party CES release-vintage compilation
 * (JSON) and the datahub CPI-U CSV; the format of each file is detected from its content.
 * No fetch plan: the API is a POST with a registration key, not a file download.
 */
export const blsJsOracleSource: Source<RecordBatch> = {
  id: 'bls',
  description: 'BLS API v2 JSON responses, CES release-vintage JSON, datahub CPI-U CSV',
  async parse(files, context) {
    const batch = createEmptyBatch();
    const knowledge: BlsKnowledgeContext = {
      calendar: context.calendars.bls,
      override: context.options.observedAt,
      collectedAt: context.collectedAt,
    };
    const out: LocatedObservation[] = [];
    for (const file of files) {
      const fileContext: FileContext = { file, knowledge, batch, out };
      const text = await readText(file);
      const start = text.replace(/^\uFEFF/, '').trimStart();
      if (start === '') throw new InputError(file, null, 'file is empty');
      if (start.startsWith('{')) readJson(text, fileContext);
      else if (start.split(/\r?\n/, 1)[0]?.trimEnd() === CPI_HEADER) await readCpiCsv(context, fileContext);
      else throw new InputError(file, 1, `not a BLS format this parser knows (${EXPECTED_FORMATS})`);
    }
    batch.observations = sortLocatedObservations(out, { kind: 'refuse' });
    return batch;
  },
};

const EXPECTED_FORMATS = `BLS API v2 JSON, the CES release-vintage JSON, or a CSV with header ${CPI_HEADER}`;

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new InputError(file, null, `cannot read file: ${(error as Error).message}`);
  }
}

function readJson(text: string, target: FileContext): void {
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new InputError(target.file, null, `invalid JSON: ${(error as Error).message}`);
  }
  if (json !== null && typeof json === 'object' && ('Results' in json || 'status' in json)) {
    readApiResponse(json, target);
  } else if (json !== null && typeof json === 'object' && 'records' in json) {
    readVintages(json, target);
  } else {
    throw new InputError(target.file, null, `JSON is not a format this parser knows (${EXPECTED_FORMATS})`);
  }
}

function readApiResponse(json: object, target: FileContext): void {
  const status = validateJson(apiStatusSchema, json, target.file);
  if (status.status !== 'REQUEST_SUCCEEDED') {
    const message = status.message?.join(' ') || 'no message';
    throw new InputError(target.file, null, `BLS API request failed (${status.status}): ${message}`);
  }
  const response = validateJson(apiResponseSchema, json, target.file);
  const name = basename(target.file);
  for (const series of response.Results.series) {
    for (const point of series.data) {
      target.batch.rows_read++;
      const locator = `${series.seriesID}/${point.year}${point.period}`;
      const value = cleanText(point.value);
      if (SKIPPED_PERIODS.has(point.period) || value === null || value === '-') {
        target.batch.rows_skipped++;
        continue;
      }
      const period = convertBlsPeriod(point.year, point.period);
      if (period === null)
        throw new InputError(target.file, null, `${locator}: unknown BLS period "${point.period}"`);
      const number = Number(value.replace(/,/g, ''));
      if (!Number.isFinite(number))
        throw new InputError(target.file, null, `${locator}: value "${value}" is not a number`);
      const footnotes = (point.footnotes ?? []).flatMap((note) =>
        note.code || note.text ? [{ code: note.code ?? null, text: note.text ?? null }] : [],
      );
      push(target, null, {
        series_key: `bls.${series.seriesID}`,
        period,
        value: number,
        footnotes,
        source_ref: `${name}#${locator}`,
        ...knowledgeOf(target, series.seriesID, period, locator),
        verification_status: 'verified',
        confidence: 1,
        data_class: 'official',
      });
    }
  }
}

function readVintages(json: object, target: FileContext): void {
  const compilation = validateJson(vintageSchema, json, target.file);
  const name = basename(target.file);
  for (const record of compilation.records) {
    target.batch.rows_read++;
    if (record.value_thousands === null) {
      target.batch.rows_skipped++;
      continue;
    }
    push(target, null, {
      series_key: `bls.${compilation.series_id}.change`,
      period: record.observation_month,
      value: record.value_thousands,
      source_ref: `${name}#${record.source_document_id}`,
      ...(target.knowledge.override !== undefined
        ? { observed_at: target.knowledge.override, observed_at_method: 'collected' as const }
        : {
            // The compilation prints the release date of each figure beside it.
            observed_at: zonedTimeToUtc(record.release_date, RELEASE_TIME, RELEASE_ZONE),
            observed_at_method: 'publisher_timestamp' as const,
          }),
      // A third party copied these from the news releases by hand.
      verification_status: 'unverified',
      confidence: 0.8,
      data_class: 'official',
    });
  }
}

async function readCpiCsv(context: IngestContext, target: FileContext): Promise<void> {
  const rows = await readCsvFile(context.connection, target.file);
  if (rows.length === 0) throw new InputError(target.file, 1, 'header only, no data rows');
  const name = basename(target.file);
  for (const row of rows) {
    target.batch.rows_read++;
    const text = cleanText(row.values.Date) ?? '';
    const date = parseIsoDate(text);
    if (date === null || date.day !== 1) {
      throw new InputError(
        target.file,
        row.line,
        `column "Date": expected the first of a month, got "${text}"`,
      );
    }
    // Inflation is datahub's own month-on-month computation, not a BLS figure.
    const value = parseNumber(row.values.Index, { file: target.file, line: row.line, column: 'Index' });
    if (value === null) {
      target.batch.rows_skipped++;
      continue;
    }
    const period = formatMonthPeriod(date.year, date.month);
    push(target, row.line, {
      series_key: CPI_SERIES_KEY,
      period,
      value,
      source_ref: `${name}:${row.line}`,
      ...knowledgeOf(target, CPI_SERIES_KEY.slice('bls.'.length), period, `line ${row.line}`),
      verification_status: 'unverified',
      confidence: 0.9,
      data_class: 'official',
    });
  }
}

/** The knowledge-time fields of one value, or an InputError when no time can be known. */
function knowledgeOf(
  target: FileContext,
  seriesId: string,
  period: string,
  locator: string,
): Pick<ObservationInput, 'observed_at' | 'observed_at_method' | 'correction'> {
  const knowledge = resolveBlsKnowledge(seriesId, period, target.knowledge);
  if (knowledge === null) {
    const why = blsNeedsCollection(seriesId, period, target.knowledge.calendar)
      ? `a later release may have revised ${seriesId} ${period} since its first release`
      : `no BLS release calendar entry dates ${seriesId} ${period}`;
    throw new InputError(
      target.file,
      null,
      `${locator}: ${why}, and the file carries no time it was collected; ` +
        'pass --collected-at (when the file was retrieved) or --observed-at',
    );
  }
  const { observed_at, method, correction } = knowledge;
  return { observed_at, observed_at_method: method, ...(correction ? { correction } : {}) };
}

function push(target: FileContext, line: number | null, observation: ObservationInput): void {
  target.out.push({ observation, file: target.file, line });
}
