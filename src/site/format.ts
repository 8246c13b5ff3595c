/** What a table shows for a missing value. */
export const MISSING = '–';

const MINUS = '−';

/** A number with thousands separators and at most `digits` decimals; a dash for null. */
export function formatNumber(value: number | null | undefined, digits = 4): string {
  if (value === null || value === undefined) return MISSING;
  return value.toLocaleString('en-US', { maximumFractionDigits: digits }).replace('-', MINUS);
}

/** A change with its sign (+1,234 or −1,234); a dash for null. */
export function formatChange(value: number | null | undefined): string {
  if (value === null || value === undefined) return MISSING;
  return value > 0 ? `+${formatNumber(value)}` : formatNumber(value);
}

/** A share of open interest as the CFTC prints it (one decimal) with a percent sign. */
export function formatPercent(value: number | null | undefined): string {
  if (value === null || value === undefined) return MISSING;
  return `${value.toFixed(1)} %`;
}

/** An RFC 3339 UTC timestamp as `2026-03-13 19:30 UTC`; a dash for null. */
export function formatTimestamp(value: string | null | undefined): string {
  if (!value) return MISSING;
  return `${value.slice(0, 10)} ${value.slice(11, 16)} UTC`;
}

/** A snake_case identifier as words with a capital: `leveraged_funds` -> `Leveraged funds`. */
export function formatIdentifier(value: string): string {
  const words = value.replace(/[_-]+/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}
