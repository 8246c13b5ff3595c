/**
 * The series search of endpoint 26 (docs/api/series-search.md): every word of the search text
 * must start a word of one of the fields of a redistributable catalogue series; the matches are
 * ranked by the weight of the fields the words are found in. The catalogue is small (hundreds of
 * series): DuckDB reads the candidates with their geography and source names once, the ranking is
 * plain code.
 */
import { SEARCH_WORD } from '../model/search-words.ts';
import type { SnapshotDb } from './snapshot-db.ts';
import { rfc3339 } from './sql.ts';

/** One series as the search reads it. */
export interface SearchCandidate {
  key: string;
  slug: string;
  name: string;
  source: string;
  source_name: string | null;
  publisher: string | null;
  frequency: string;
  unit: string;
  country: string | null;
  country_name: string | null;
  region: string | null;
  region_name: string | null;
  seasonal_adjustment: string | null;
  description: string | null;
  fred_id: string | null;
  period: string | null;
  value: number | null;
  observed_at: string | null;
}

/** A match with its score. */
export interface SearchMatch {
  series: SearchCandidate;
  score: number;
}

/**
 * The weight of a word found in each field group; a word counts once, with the best group it is
 * found in. Documented in the route's description and docs/api/series-search.md.
 */
export const SEARCH_WEIGHTS = {
  name: 8,
  id: 6,
  geography: 4,
  source: 3,
  units: 3,
  frequency: 2,
  notes: 1,
} as const;
/** Added when the whole search text is the key, slug or FRED id of the series (any case). */
export const SEARCH_EXACT_ID_BONUS = 100;

const CANDIDATES = `SELECT s.key, s.slug, s.name, s.source, src.name AS source_name, src.publisher,
            s.frequency, s.unit, s.country, c.name AS country_name, coalesce(g.code, s.region) AS region,
            coalesce(g.name, c.region_name) AS region_name, s.seasonal_adjustment, s.description, s.fred_id,
            l.period, l.value, ${rfc3339('l.observed_at')} AS observed_at
       FROM series s
       JOIN series_rights sr ON sr.key = s.key AND sr.redistributable
       LEFT JOIN sources src ON src.id = s.source
       LEFT JOIN regions g ON g.code = s.region OR g.slug = s.region
       LEFT JOIN countries c ON c.iso2 = s.country
       LEFT JOIN series_latest l ON l.series_key = s.key
      ORDER BY s.key`;

/** The words of a text, lower case. */
export function searchWords(text: string | null | undefined): string[] {
  return (text ?? '').toLowerCase().match(SEARCH_WORD) ?? [];
}

function fieldGroups(series: SearchCandidate): Record<keyof typeof SEARCH_WEIGHTS, string[]> {
  return {
    name: searchWords(series.name),
    id: [series.key, series.slug, series.fred_id].flatMap(searchWords),
    geography: [series.country, series.country_name, series.region, series.region_name].flatMap(searchWords),
    source: [series.source, series.source_name, series.publisher].flatMap(searchWords),
    units: [series.unit, series.seasonal_adjustment].flatMap(searchWords),
    frequency: searchWords(series.frequency),
    notes: searchWords(series.description),
  };
}

/** The score of one series for the words, or null when a word is found in none of its fields. */
export function scoreSeries(series: SearchCandidate, words: readonly string[], text: string): number | null {
  const groups = Object.entries(fieldGroups(series)) as Array<[keyof typeof SEARCH_WEIGHTS, string[]]>;
  let score = 0;
  for (const word of words) {
    let best = 0;
    for (const [group, fieldWords] of groups)
      if (fieldWords.some((fieldWord) => fieldWord.startsWith(word)))
        best = Math.max(best, SEARCH_WEIGHTS[group]);
    if (best === 0) return null;
    score += best;
  }
  const whole = text.trim().toLowerCase();
  if ([series.key, series.slug, series.fred_id].some((id) => id?.toLowerCase() === whole))
    score += SEARCH_EXACT_ID_BONUS;
  return score;
}

/** Every redistributable catalogue series matching all words of the text, best first. */
export async function searchSeries(db: SnapshotDb, text: string): Promise<SearchMatch[]> {
  const words = [...new Set(searchWords(text))];
  const candidates = await db.query<SearchCandidate>(CANDIDATES);
  const matches: SearchMatch[] = [];
  for (const series of candidates) {
    const score = scoreSeries(series, words, text);
    if (score !== null) matches.push({ series, score });
  }
  return matches.sort(
    (a, b) =>
      b.score - a.score ||
      compareText(a.series.name, b.series.name) ||
      compareText(a.series.key, b.series.key),
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
