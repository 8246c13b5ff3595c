/** Formats a number with fixed decimals, never as `-0.00`. */
export function formatFixed(value: number, decimals: number): string {
  const text = value.toFixed(decimals);
  return Number(text) === 0 ? (0).toFixed(decimals) : text;
}

/** Rounds to `decimals` and drops trailing zeros, as the ECB history CSV writes rates (`0.8477`, `144`). */
export function formatTrimmed(value: number, decimals: number): string {
  return String(Number(value.toFixed(decimals)));
}

/** Right-aligns a CFTC field in its fixed width (`  511276`). */
export function padField(value: number | string, width: number): string {
  return String(value).padStart(width);
}

/** A share of open interest with one decimal, `0.0` when the open interest is zero (CFTC style). */
export function formatPercent(part: number, whole: number): string {
  return whole === 0 ? '0.0' : ((part / whole) * 100).toFixed(1);
}

/** Clamps a value into [min, max]. */
export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/**
 * Serialises JSON the way the BLS API v2 responses are laid out: two-space indent, `": "`,
 * an empty array as `[` blank line `]` and an empty object as `{` newline `}`, no final newline.
 */
export function formatBlsJson(value: Json, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return `[\n\n${indent}]`;
    return `[\n${value.map((item) => inner + formatBlsJson(item, inner)).join(',\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return `{\n${indent}}`;
    const lines = entries.map(
      ([key, item]) => `${inner}${JSON.stringify(key)}: ${formatBlsJson(item, inner)}`,
    );
    return `{\n${lines.join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

export type { Json };
