/**
 * `fields=` (issue 35 item 3): the fields of each row to return, on every endpoint that answers
 * rows (docs/api/fields.md). The parameter only checks the list's form here; which names a route's
 * rows have is known once its view is (api/v1/field-selection.ts), and an unknown name is a 400
 * listing them there. The value is kept in one canonical spelling (the names sorted), so that the
 * same set asked in another order is the same request: the same ETag and cache entry.
 */
import { z } from 'zod';
import type { ParamSpec } from './param-spec.ts';

/** A field name as rows and CSV headers write it: `period`, `ecb.USD`, a vintage `2025-08-01T12:30:00Z`. */
const NAME = '[A-Za-z0-9_][A-Za-z0-9_.:-]{0,63}';
/** At most this many names: more than any row has. */
export const FIELDS_MAX = 600;
const FIELD_LIST = new RegExp(`^${NAME}(,${NAME})*$`);

/** The names of a `fields` value (its canonical spelling, or as given). */
export function splitFields(value: string): string[] {
  return value.split(',');
}

/** Spread into PARAMS. */
export const FIELDS_PARAMS = {
  fields: {
    description:
      "Row fields to return, comma-separated (period,value): each row keeps these, in the row's order; CSV: header columns (categories keeps categories.*). Unknown names: 400 listing the row's.",
    schema: z
      .string()
      .max(20_000)
      .regex(FIELD_LIST)
      .refine((text) => {
        const names = splitFields(text);
        return names.length <= FIELDS_MAX && new Set(names).size === names.length;
      })
      .transform((text) => splitFields(text).sort().join(',')),
    expected: "the rows' field names, comma-separated, each once",
    openapi: { type: 'string', pattern: FIELD_LIST.source, examples: ['period,value,observed_at'] },
  },
} satisfies Record<string, ParamSpec>;
