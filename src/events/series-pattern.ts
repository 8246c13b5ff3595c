import type { ReleaseEvent } from './event.ts';

/**
 * The one rule for series patterns, used by the `series` filter of /api/v1/events (stream and
 * JSON pages) and by `mmds hooks add --series` (docs/api/events.md, docs/webhooks.md): a pattern is
 * a series key in which `*` stands for any characters, none included (`ecb.*`, `bls.CES*`, `*`).
 * An event about a series matches when its key does. An event about a whole release
 * (`release.published`, `release.delayed`: no series) matches when the pattern's part before the
 * first dot matches its source: `ecb.*` receives the ECB's releases and its series' events,
 * `bls.CES*` every BLS release (a release event does not list its series), `*` everything.
 */

/** Longest pattern. */
export const MAX_PATTERN_LENGTH = 200;

/** The characters of a pattern (a series key's, and `*`), as a regular-expression class. */
export const PATTERN_CHARACTERS = '[A-Za-z0-9_.:*-]';

const PATTERN = new RegExp(`^${PATTERN_CHARACTERS}+$`);

/** Describes what is wrong with a series pattern, or returns null. */
export function describePatternProblem(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH)
    return `a series pattern must be at most ${MAX_PATTERN_LENGTH} characters`;
  if (!PATTERN.test(pattern))
    return `series pattern "${pattern}" may hold only letters, digits, "_", ".", ":", "-" and "*"`;
  return null;
}

/** Whether `text` matches a pattern with `*` for any characters (no regular expression: linear). */
function globMatches(pattern: string, text: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === text;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!text.startsWith(first) || text.length < first.length + last.length || !text.endsWith(last))
    return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = text.indexOf(middle, at);
    if (found === -1 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

/** Tells whether an event falls under any of the patterns. */
export function matchesSeries(
  patterns: readonly string[],
  event: Pick<ReleaseEvent, 'series' | 'source'>,
): boolean {
  return patterns.some((pattern) => {
    if (event.series !== null) return globMatches(pattern, event.series);
    return globMatches(pattern.split('.')[0]!, event.source);
  });
}
