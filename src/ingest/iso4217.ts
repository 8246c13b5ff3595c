import { readFile } from 'node:fs/promises';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { type CsvRow, readCsvFile } from '../db/duckdb.ts';
import type { Currency, ParsedBatch } from '../model/records.ts';
import { firstLine, InputError } from './input-error.ts';
import { createEmptyBatch, type IngestContext, type Source } from './source.ts';
import { cleanText, publishedText } from './values.ts';

/** One row of a list (an entity using a currency), before rows are merged per code. */
interface CurrencyEntry {
  entity: string | null;
  name: string;
  code: string;
  numeric: string | null;
  minorUnits: number | null;
  isFund: boolean;
  withdrawn: string | null;
}

/** The raw text fields of a row, whichever format it came from. */
type RawEntry = Omit<CurrencyEntry, 'name' | 'code' | 'minorUnits'> & {
  name: string | null;
  code: string | null;
  minorUnits: string | null;
};

/** What one file yielded. */
interface FileEntries {
  entries: CurrencyEntry[];
  read: number;
  skipped: number;
}

const CSV_COLUMNS = ['Entity', 'Currency', 'AlphabeticCode', 'NumericCode', 'MinorUnit', 'WithdrawalDate'];
/** `2003-01`, `1989`, or the ranges ISO writes for old withdrawals (`1989 to 1990`, `1989-1990`). */
const WITHDRAWAL = /^\d{4}(-\d{2})?(( to |-)\d{4}(-\d{2})?)?$/;

/** ISO 4217 lists as published by SIX (list one current, list three historic) or datahub's CSV. */
export const iso4217Source: Source = {
  id: 'iso4217',
  description: 'ISO 4217 currency codes: list one / list three XML, or the flattened CSV',
  parse: parseIso4217Files,
};

/**
 * Parses ISO 4217 files (list one and list three together, or the flattened CSV) into one
 * currency per code; a code current for any entity is current, so give files of one
 * publication (an older list one would revive a since-withdrawn code).
 */
export async function parseIso4217Files(
  files: readonly string[],
  context: IngestContext,
): Promise<ParsedBatch> {
  const batch = createEmptyBatch();
  const entries: CurrencyEntry[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new InputError(file, null, `cannot read: ${firstLine(error)}`);
    }
    const result = /^\uFEFF?\s*</.test(text)
      ? readXmlEntries(file, text)
      : await readCsvEntries(context, file);
    batch.rows_read += result.read;
    batch.rows_skipped += result.skipped;
    entries.push(...result.entries);
  }
  batch.currencies = mergeEntries(entries);
  return batch;
}

function readXmlEntries(file: string, text: string): FileEntries {
  // The parser accepts a document cut short without complaint; the validator does not, but it
  // reports elements left open at the end as "Unclosed tag" or, for several, at line 1.
  const validation = XMLValidator.validate(text);
  if (validation !== true) {
    const { msg, line } = validation.err;
    if (/^(Unclosed tag|Invalid '\[)/.test(msg)) {
      const last = text.split('\n').length;
      throw new InputError(file, last, `XML ends with elements still open (truncated file?): ${msg}`);
    }
    throw new InputError(file, line, `malformed XML: ${msg}`);
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    // Numeric codes such as `008` must stay text.
    parseTagValue: false,
    // Names are served as published, trailing spaces included (`Comorian Franc `).
    trimValues: false,
    parseAttributeValue: false,
    captureMetaData: true,
    isArray: (name) => name === 'CcyNtry' || name === 'HstrcCcyNtry',
  });
  const document = parser.parse(text) as Record<string, unknown>;
  const root = document.ISO_4217;
  if (!isRecord(root)) {
    const found = Object.keys(document).find((key) => !key.startsWith('?')) ?? 'nothing';
    throw new InputError(file, null, `not an ISO 4217 list: root element is <${found}>, expected <ISO_4217>`);
  }
  const current = isRecord(root.CcyTbl) ? root.CcyTbl.CcyNtry : undefined;
  const historic = isRecord(root.HstrcCcyTbl) ? root.HstrcCcyTbl.HstrcCcyNtry : undefined;
  const nodes = current ?? historic;
  if (!Array.isArray(nodes) || nodes.length === 0) {
    throw new InputError(file, null, 'no <CcyTbl><CcyNtry> or <HstrcCcyTbl><HstrcCcyNtry> entries');
  }
  const lineAt = createLineCounter(text);
  const meta = XMLParser.getMetaDataSymbol() as unknown as symbol;
  const result: FileEntries = { entries: [], read: 0, skipped: 0 };
  for (const node of nodes as unknown[]) {
    if (!isRecord(node)) throw new InputError(file, null, 'empty currency entry');
    const start = (node[meta] as { startIndex?: number } | undefined)?.startIndex;
    const line = start === undefined ? null : lineAt(start);
    result.read += 1;
    const name = node.CcyNm;
    const raw: RawEntry = {
      entity: publishedText(textOf(node.CtryNm)),
      name: publishedText(textOf(name)),
      code: cleanText(textOf(node.Ccy)),
      numeric: cleanText(textOf(node.CcyNbr)),
      minorUnits: cleanText(textOf(node.CcyMnrUnts)),
      isFund: isRecord(name) && name['@_IsFund'] === 'true',
      withdrawn: cleanText(textOf(node.WthdrwlDt)),
    };
    if (current === undefined && raw.withdrawn === null && raw.code !== null) {
      throw new InputError(file, line, `historic entry ${raw.code} has no <WthdrwlDt>`);
    }
    const entry = readEntry(file, line, raw);
    if (entry === null) result.skipped += 1;
    else result.entries.push(entry);
  }
  return result;
}

async function readCsvEntries(context: IngestContext, file: string): Promise<FileEntries> {
  let rows: CsvRow[];
  try {
    rows = await readCsvFile(context.connection, file);
  } catch (error) {
    throw new InputError(file, null, `neither ISO 4217 XML nor a readable CSV: ${firstLine(error)}`);
  }
  const first = rows[0];
  if (first === undefined) throw new InputError(file, null, 'no data rows (empty or truncated file)');
  const missing = CSV_COLUMNS.filter((column) => !(column in first.values));
  if (missing.length > 0) {
    throw new InputError(file, 1, `not an ISO 4217 CSV: missing columns ${missing.join(', ')}`);
  }
  const result: FileEntries = { entries: [], read: rows.length, skipped: 0 };
  for (const { line, values } of rows) {
    const entry = readEntry(file, line, {
      entity: publishedText(values.Entity),
      name: publishedText(values.Currency),
      code: cleanText(values.AlphabeticCode),
      numeric: cleanText(values.NumericCode),
      minorUnits: cleanText(values.MinorUnit),
      // The flattened CSV drops list one's IsFund attribute.
      isFund: false,
      withdrawn: cleanText(values.WithdrawalDate),
    });
    if (entry === null) result.skipped += 1;
    else result.entries.push(entry);
  }
  return result;
}

/** Checks one row; null for an entity without a currency (ISO's "No universal currency"). */
function readEntry(file: string, line: number | null, raw: RawEntry): CurrencyEntry | null {
  if (raw.code === null) {
    if (raw.numeric === null && raw.minorUnits === null) return null;
    throw new InputError(file, line, `"${raw.entity ?? ''}" has a numeric code but no alphabetic code`);
  }
  if (!/^[A-Z]{3}$/.test(raw.code)) {
    throw new InputError(file, line, `expected a 3-letter code, got "${raw.code}"`);
  }
  if (raw.name === null) throw new InputError(file, line, `currency ${raw.code} has no name`);
  if (raw.numeric !== null && !/^\d{1,3}$/.test(raw.numeric)) {
    throw new InputError(file, line, `currency ${raw.code}: expected a numeric code, got "${raw.numeric}"`);
  }
  if (raw.withdrawn !== null && !WITHDRAWAL.test(raw.withdrawn)) {
    throw new InputError(file, line, `currency ${raw.code}: bad withdrawal date "${raw.withdrawn}"`);
  }
  return {
    entity: raw.entity,
    name: raw.name,
    code: raw.code,
    numeric: raw.numeric?.padStart(3, '0') ?? null,
    minorUnits: readMinorUnits(file, line, raw),
    isFund: raw.isFund,
    withdrawn: raw.withdrawn,
  };
}

/** ISO writes `N.A.` (the CSV `-`) where minor units do not apply; historic rows leave it empty. */
function readMinorUnits(file: string, line: number | null, raw: RawEntry): number | null {
  const text = raw.minorUnits;
  if (text === null || text === 'N.A.' || text === '-') return null;
  if (!/^\d$/.test(text)) throw new InputError(file, line, `currency ${raw.code}: bad minor units "${text}"`);
  return Number(text);
}

/**
 * One currency per code: current entries win; a withdrawn code takes its latest withdrawal.
 * Every historic entry is kept in `withdrawals`, so a code withdrawn twice (HRK) shows both.
 */
function mergeEntries(entries: readonly CurrencyEntry[]): Currency[] {
  const byCode = Map.groupBy(entries, (entry) => entry.code);
  const currencies: Currency[] = [];
  for (const [code, group] of byCode) {
    const current = group.filter((entry) => entry.withdrawn === null);
    const chosen = current.length > 0 ? current : group;
    const lead =
      current[0] ??
      group.reduce((latest, entry) => (withdrawalEnd(entry) > withdrawalEnd(latest) ? entry : latest));
    currencies.push({
      code,
      numeric: lead.numeric ?? chosen.find((entry) => entry.numeric !== null)?.numeric ?? null,
      name: lead.name,
      minor_units: lead.minorUnits,
      is_fund: chosen.some((entry) => entry.isFund),
      entities: [...new Set(chosen.flatMap((entry) => (entry.entity === null ? [] : [entry.entity])))],
      withdrawn: current.length > 0 ? null : lead.withdrawn,
      withdrawals: listWithdrawals(group),
    });
  }
  return currencies.sort((a, b) => (a.code < b.code ? -1 : 1));
}

/**
 * The historic entries of one code, oldest first; the same entry read twice (list three and the
 * flattened CSV in one ingest) counts once.
 */
function listWithdrawals(group: readonly CurrencyEntry[]): Currency['withdrawals'] {
  const unique = new Map<string, CurrencyEntry & { withdrawn: string }>();
  for (const entry of group) {
    if (entry.withdrawn === null) continue;
    unique.set(JSON.stringify([entry.entity, entry.name, entry.withdrawn]), {
      ...entry,
      withdrawn: entry.withdrawn,
    });
  }
  return [...unique.values()]
    .sort(
      (a, b) =>
        compareText(withdrawalEnd(a), withdrawalEnd(b)) ||
        compareText(a.withdrawn, b.withdrawn) ||
        compareText(a.entity ?? '', b.entity ?? '') ||
        compareText(a.name, b.name),
    )
    .map((entry) => ({ entity: entry.entity, name: entry.name, withdrawn: entry.withdrawn }));
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The last date written in a withdrawal (`1989 to 1990` ends in 1990), comparable as text. */
function withdrawalEnd(entry: CurrencyEntry): string {
  return entry.withdrawn?.match(/\d{4}(-\d{2})?/g)?.at(-1) ?? '';
}

/** The text of an element as written (with or without attributes), or null. */
function textOf(node: unknown): string | null {
  if (typeof node === 'string') return node;
  if (isRecord(node) && typeof node['#text'] === 'string') return node['#text'];
  return null;
}

function isRecord(value: unknown): value is Record<string | symbol, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Maps character offsets, asked in increasing order, to 1-based lines for error messages. */
function createLineCounter(text: string): (offset: number) => number {
  let line = 1;
  let scanned = 0;
  return (offset) => {
    for (; scanned < offset; scanned++) if (text.charCodeAt(scanned) === 10) line += 1;
    return line;
  };
}
