/**
 * The parameters FRED users bring for search and order (issue 35 item 2): `search_text` and
 * `offset` of /api/v1/series/search, and `sort_order` of the history endpoints ("latest N":
 * sort_order=desc with limit). docs/api/series-search.md and docs/api/history-order.md describe them.
 */
import { z } from 'zod';
import { SEARCH_MAX_WORDS, SEARCH_WORD } from '../model/search-words.ts';
import type { ParamSpec } from './param-spec.ts';

export { SEARCH_MAX_WORDS, SEARCH_WORD };

/** Printable text: no control characters (\p{Cc}). */
const SEARCH_TEXT = /^\P{Cc}{1,200}$/u;

function wordCount(text: string): number {
  return text.match(SEARCH_WORD)?.length ?? 0;
}

/** Spread into PARAMS. */
export const SEARCH_PARAMS = {
  search_text: {
    description:
      "Words to look for (FRED's search_text), any case: a series matches when every word starts a word of " +
      'its name, key, slug, FRED id, notes, source, geography (country, region), frequency or units. ' +
      `1 to ${SEARCH_MAX_WORDS} words of letters or digits, at most 200 characters.`,
    schema: z
      .string()
      .regex(SEARCH_TEXT)
      .refine((text) => {
        const words = wordCount(text);
        return words >= 1 && words <= SEARCH_MAX_WORDS;
      }),
    expected: `1 to ${SEARCH_MAX_WORDS} words of letters or digits, at most 200 characters, such as nonfarm payrolls`,
    openapi: { type: 'string', minLength: 1, maxLength: 200 },
    required: true,
  },
  offset: {
    description: "Matches to skip before the first row (FRED's offset), 0 to 100000 (default 0).",
    schema: z
      .string()
      .regex(/^(0|[1-9]\d{0,5})$/)
      .transform(Number)
      .refine((n) => n <= 100_000),
    expected: 'a whole number from 0 to 100000',
    openapi: { type: 'integer', minimum: 0, maximum: 100000, default: 0 },
  },
  sort_order: {
    description:
      "Row order (FRED's sort_order): asc (default) oldest period first, desc newest period first (the " +
      'revisions of a period newest first too). With limit, desc gives the latest N; the cursor continues ' +
      'in the same order.',
    schema: z.enum(['asc', 'desc']),
    expected: 'asc or desc',
    openapi: { type: 'string', enum: ['asc', 'desc'], default: 'asc' },
    keyedOnly: true,
  },
} satisfies Record<string, ParamSpec>;
