import { basename } from 'node:path';
import { z } from 'zod';
import { execute } from '../db/duckdb.ts';
import type { BlsTables } from './bls-staging.ts';
import { InputError } from './input-error.ts';
import { validateJson } from './validate-json.ts';

/* The BLS Public Data API v2 response: its shape checked by schema, its values staged in SQL. */

export const apiStatusSchema = z.object({ status: z.string(), message: z.array(z.string()).optional() });

// Objects are not strict: `catalog`, `calculations` and `latest` are ignored.
export const apiResponseSchema = z.object({
  status: z.literal('REQUEST_SUCCEEDED'),
  Results: z.object({
    series: z.array(
      z.object({
        seriesID: z.string().regex(/^[A-Z0-9]+$/, 'expected a BLS series id'),
        data: z.array(
          z.object({
            year: z.string().regex(/^\d{4}$/, 'expected a four-digit year'),
            period: z.string(),
            value: z.string(),
            // Empty objects stand for "no footnote" in the API's output.
            footnotes: z
              .array(z.object({ code: z.string().optional(), text: z.string().optional() }))
              .optional(),
          }),
        ),
      }),
    ),
  }),
});

/**
 * Checks an API response's shape (JSON-path messages) and stages its values, built in SQL from
 * the JSON text: M13/S01/S02 and missing (`-`, empty) values skipped, the period converted
 * (convertBlsPeriod), the value read as a number, the non-empty footnotes kept.
 */
export async function stageApiResponse(json: object, file: string, tables: BlsTables): Promise<void> {
  const status = validateJson(apiStatusSchema, json, file);
  if (status.status !== 'REQUEST_SUCCEEDED') {
    const message = status.message?.join(' ') || 'no message';
    throw new InputError(file, null, `BLS API request failed (${status.status}): ${message}`);
  }
  const response = validateJson(apiResponseSchema, json, file);
  const shape =
    '[{"seriesID":"VARCHAR","data":[{"year":"VARCHAR","period":"VARCHAR","value":"VARCHAR",' +
    '"footnotes":[{"code":"VARCHAR","text":"VARCHAR"}]}]}]';
  await execute(
    tables.connection,
    `INSERT INTO ${tables.staged} BY NAME
     WITH series AS (
       SELECT unnest(list) AS s, generate_subscripts(list, 1) AS series_index
         FROM (SELECT from_json($series::JSON, '${shape}') AS list)
     ),
     points AS (
       SELECT series_index, s.seriesID AS id, unnest(s.data) AS p, generate_subscripts(s.data, 1) AS point_index
         FROM series
     ),
     read AS (
       SELECT *, mmds_clean_text(p.value) AS text, regexp_extract(p.period, '^([MQA])(\\d{2})$', ['kind', 'number']) AS code,
              id || '/' || p.year || p.period AS locator
         FROM points
     ),
     converted AS (
       SELECT *, CASE
                 WHEN code.kind = 'M' AND TRY_CAST(code.number AS INTEGER) BETWEEN 1 AND 12
                   THEN p.year || '-' || code.number
                 WHEN code.kind = 'Q' AND TRY_CAST(code.number AS INTEGER) BETWEEN 1 AND 4
                   THEN p.year || '-Q' || TRY_CAST(code.number AS INTEGER)
                 WHEN code.kind = 'A' AND TRY_CAST(code.number AS INTEGER) = 1 THEN p.year END AS converted,
              replace(text, ',', '') AS normalised
         FROM read
     ),
     numbered AS (
       SELECT *, CASE WHEN normalised = '' THEN 0::DOUBLE ELSE mmds_number_value(normalised) END AS number
         FROM converted
     )
     SELECT series_index::BIGINT * 100000000 + point_index AS ordinal, NULL AS line,
            p.period IN ('M13', 'S01', 'S02') OR text IS NULL OR text = '-' AS skipped,
            CASE WHEN converted IS NULL THEN locator || ': unknown BLS period "' || p.period || '"'
                 WHEN number IS NULL OR NOT isfinite(number)
                   THEN locator || ': value "' || text || '" is not a number' END AS problem,
            NULL AS problem_line,
            'bls.' || id AS series_key, id AS knowledge_id, converted AS period, number AS value,
            list_transform(
              list_filter(coalesce(p.footnotes, []), note -> coalesce(note.code, '') <> '' OR coalesce(note.text, '') <> ''),
              note -> {'code': note.code, 'text': note.text}) AS footnotes,
            $name || '#' || locator AS source_ref, locator, NULL AS given_at, NULL AS given_method,
            'verified' AS verification_status, 1::DOUBLE AS confidence
       FROM numbered`,
    { series: JSON.stringify(response.Results.series), name: basename(file) },
  );
}
