import { InputError } from './input-error.ts';

/** Markers publishers use for a missing value: ECB `N/A`, CFTC `.`, FRED `.`, blanks. */
const MISSING = new Set(['', '.', 'N/A', 'NA', '-', '\u00a0']);

/** Where a raw value was read, for error messages. */
export interface ValueSite {
  file: string;
  line: number;
  column: string;
}

/** Trims spaces and no-break spaces; returns null for an empty field. */
export function cleanText(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  const text = raw.replace(/^[\s\u00a0]+|[\s\u00a0]+$/g, '');
  return text === '' ? null : text;
}

/**
 * A text field as the publisher wrote it, leading and trailing spaces and no-break spaces kept
 * (ISO 4217 names the Comoros' currency `Comorian Franc `); null for an empty or blank field.
 * For names and descriptions, served as published; codes go through cleanText.
 */
export function publishedText(raw: string | null | undefined): string | null {
  return cleanText(raw) === null ? null : (raw as string);
}

/**
 * Parses a published number (space-padded, maybe with thousands separators), or null for a
 * missing-value marker; anything else is an InputError naming the file, line and column.
 */
export function parseNumber(raw: string | null | undefined, site: ValueSite): number | null {
  const text = cleanText(raw);
  if (text === null || MISSING.has(text)) return null;
  const normalised = text.replace(/,/g, '');
  const value = Number(normalised);
  if (normalised === '' || !Number.isFinite(value)) {
    throw new InputError(site.file, site.line, `column "${site.column}": expected a number, got "${text}"`);
  }
  return value;
}

/** Like parseNumber, but the value must be present. */
export function parseRequiredNumber(raw: string | null | undefined, site: ValueSite): number {
  const value = parseNumber(raw, site);
  if (value === null) throw new InputError(site.file, site.line, `column "${site.column}": value missing`);
  return value;
}
