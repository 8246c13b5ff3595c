import { invalidParameter } from '../../contract/errors.ts';
import { PARAMS } from '../../contract/params.ts';

/** Where a page ended: the last row's period and revision number (the keyset of the history tables). */
export interface HistoryCursor {
  period: string;
  revision_number: number;
}

/** Periods are at most `YYYY-MM-DD`; anything longer did not come from us. */
const MAX_PERIOD_LENGTH = 16;

/** Revision numbers are INTEGER columns: a forged cursor past this is refused, never cast by DuckDB. */
const MAX_REVISION_NUMBER = 2 ** 31 - 1;

/** Encodes the end of a page as base64url JSON; clients treat it as opaque. */
export function encodeCursor(cursor: HistoryCursor): string {
  return Buffer.from(JSON.stringify({ p: cursor.period, r: cursor.revision_number })).toString('base64url');
}

/**
 * Decodes a cursor made by `encodeCursor`; anything else, including a value that only decodes
 * leniently (Node's base64url decoder skips stray characters), is `invalid_parameter`.
 */
export function decodeCursor(text: string): HistoryCursor {
  const refuse = () => invalidParameter('cursor', PARAMS.cursor.expected);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw refuse();
  const { p, r } = parsed as Record<string, unknown>;
  if (typeof p !== 'string' || p.length === 0 || p.length > MAX_PERIOD_LENGTH) throw refuse();
  if (typeof r !== 'number' || !Number.isInteger(r) || r < 1 || r > MAX_REVISION_NUMBER) throw refuse();
  const cursor = { period: p, revision_number: r };
  if (encodeCursor(cursor) !== text) throw refuse();
  return cursor;
}
