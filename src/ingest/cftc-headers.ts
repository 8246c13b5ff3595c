/**
 * The known headers of the CFTC Commitments of Traders text files: per report family, every
 * column name published (after trimming: the legacy file writes `" Total Reportable
 * Positions-Long (All)"` with a leading space, and in 2004 `"CFTC Commodity Code (Quotes) "` with
 * a trailing one), and the names some eras used instead (docs/data-sources.md, "COT formats by
 * era"). Read from the CFTC's own files: legacy 2004 and 2025, disaggregated 2017-2021, TFF
 * 2010-2026 (futures only and combined), CIT 2024 (../shared/data/cftc/history/README.md).
 * A header outside this table is refused with the nearest known name, never guessed: a column
 * the CFTC renamed may also have changed meaning. The lists are data (cftc-headers.json), checked
 * against the CFTC's files by the tests of test/unit/ingest.
 */
import { findNearest } from '../lib/edit-distance.ts';
import type { CotReportType } from '../model/records.ts';
import { listLayoutColumns, REPORT_LAYOUTS, type ReportLayout } from './cftc-columns.ts';
import HEADERS from './cftc-headers.json' with { type: 'json' };
import { InputError } from './input-error.ts';

/** A name an era used for a column the table knows under another (canonical) name. */
export interface HeaderVariant {
  name: string;
  canonical: string;
  /** The years the name was seen in, and what the values under it look like. */
  era: string;
}

/** The known header of one report family. */
export interface FamilyHeaders {
  /** The canonical names, in the order of the current files. */
  columns: readonly string[];
  variants: readonly HeaderVariant[];
}

/**
 * Every report family's known header, with the variants of earlier eras: data, in
 * cftc-headers.json (each family's `note` says what the CFTC's files showed).
 */
export const COT_HEADERS: Record<CotReportType, FamilyHeaders> = HEADERS;

/** DuckDB's names for fields beyond the header (a malformed row, checked apart). */
const EXTRA_COLUMN = /^column\d+$/;

/** A file's header resolved: its layout, and each canonical column name to the name DuckDB gave it. */
export interface ResolvedHeader {
  layout: ReportLayout;
  keys: Map<string, string>;
}

/**
 * Recognises the report family by its marker column, maps every column of the header (trimmed)
 * to its canonical name through COT_HEADERS, and checks every column the layout reads is there.
 * An unknown column is an InputError naming the column and the nearest known header.
 */
export function resolveCftcHeader(file: string, columns: readonly string[]): ResolvedHeader {
  const names = columns.filter((column) => !EXTRA_COLUMN.test(column));
  const trimmed = new Set(names.map((column) => column.trim()));
  const layout = REPORT_LAYOUTS.find((candidate) => trimmed.has(candidate.marker));
  if (layout === undefined) {
    const markers = REPORT_LAYOUTS.map((candidate) => `"${candidate.marker}"`).join(', ');
    throw new InputError(
      file,
      1,
      `not a CFTC Commitments of Traders file: the header has none of ${markers}`,
    );
  }
  const family = COT_HEADERS[layout.reportType];
  const known = new Set(family.columns);
  const variants = new Map(family.variants.map((variant) => [variant.name, variant.canonical]));
  const keys = new Map<string, string>();
  for (const column of names) {
    const name = column.trim();
    const canonical = known.has(name) ? name : variants.get(name);
    if (canonical === undefined) {
      const nearest = findNearest(name, [...family.columns, ...variants.keys()]);
      throw new InputError(
        file,
        1,
        `unknown column "${name}" in the header of a ${layout.reportType} COT file; nearest known header "${nearest}" (docs/data-sources.md lists the known headers)`,
      );
    }
    if (keys.has(canonical)) {
      throw new InputError(
        file,
        1,
        `the header of a ${layout.reportType} COT file names "${canonical}" twice`,
      );
    }
    keys.set(canonical, column);
  }
  const missing = listLayoutColumns(layout).filter((column) => !keys.has(column));
  if (missing.length > 0) {
    throw new InputError(
      file,
      1,
      `header of a ${layout.reportType} COT file lacks ${missing.map((column) => `"${column}"`).join(', ')}`,
    );
  }
  return { layout, keys };
}
