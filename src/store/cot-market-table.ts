import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedString } from '../db/duckdb.ts';
import { SERVED_COT_REPORT_TYPES } from '../model/records.ts';
import {
  CFTC_COMMODITY_SECTORS,
  CFTC_EXCHANGE_MICS,
  CFTC_SUBGROUP_SECTORS,
  REPORT_TYPE_ORDER,
} from './cftc-codes.ts';

/** A `(VALUES ...)` relation of constant text pairs (our own tables, never input). */
function valuesOf(entries: Readonly<Record<string, string>>, key: string, value: string): string {
  const rows = Object.entries(entries).map(([k, v]) => `(${quotedString(k)}, ${quotedString(v)})`);
  return `(VALUES ${rows.join(', ')}) AS t(${key}, ${value})`;
}

/**
 * SQL turning a market's name into a slug base: the market part of "<market> - <exchange>",
 * lowercase, apostrophes and ampersands dropped (BUYER'S, S&P), other runs of characters
 * outside [a-z0-9] as one "-".
 */
function slugOf(name: string): string {
  return `trim(regexp_replace(regexp_replace(lower(${name}), '[''&]', '', 'g'), '[^a-z0-9]+', '-', 'g'), '-')`;
}

/**
 * At most this many days from the old code's last report to the new code's first: the next
 * report week (a holiday may move a report date by a day).
 */
const HANDOVER_DAYS = 10;

/**
 * The CTEs of contract lineage, over `reports`, `per_code` and `spans` of createCotMarketTable:
 * `links(from_code, to_code)`, a code the files show handing over to another. The evidence rule
 * (docs/data-sources.md, "Contract lineage"): the new code's first report is the store's next
 * report date after the old code's last one, at most HANDOVER_DAYS later; both carry the same
 * CFTC commodity code; and the market part of one's name holds the other's as whole words, case
 * and runs of spaces aside ("NJ SRECS VINTAGE 2019" → "NJ SRECS"). Anything looser (a code that
 * stops while another of the commodity starts, with years between the files) is not a link.
 */
const LINEAGE_CTES = `market_parts AS (
       SELECT DISTINCT code, ' ' || upper(regexp_replace(trim(market_part), '\\s+', ' ', 'g')) || ' ' AS part
         FROM reports),
     calendar AS (
       SELECT period, lead(period) OVER (ORDER BY period) AS next_period
         FROM (SELECT DISTINCT period FROM reports)),
     links AS (
       SELECT DISTINCT a.code AS from_code, b.code AS to_code
         FROM spans a
         JOIN calendar c ON c.period = a.last_report
         JOIN spans b ON b.first_report = c.next_period
         JOIN per_code pa ON pa.code = a.code
         JOIN per_code pb ON pb.code = b.code AND pb.commodity_code = pa.commodity_code
         JOIN market_parts na ON na.code = a.code
         JOIN market_parts nb ON nb.code = b.code
        WHERE date_diff('day', CAST(a.last_report AS DATE), CAST(b.first_report AS DATE)) <= ${HANDOVER_DAYS}
          AND (contains(na.part, nb.part) OR contains(nb.part, na.part)))`;

/** The markets `links` leads to from market `l` (`self` the column of l, `other` of the linked), by code. */
function linkedMarkets(self: string, other: string): string {
  return `coalesce((SELECT list({'code': k.${other}, 'slug': o.slug} ORDER BY k.${other})
                      FROM links k JOIN listed o ON o.code = k.${other}
                     WHERE k.${self} = l.code), [])`;
}

/**
 * Creates `cot_markets`: one row per CFTC contract market code of the store (or of a catalog
 * override), the catalog's overrides applied over what the files say.
 * - slug: the override's, else from the market's FIRST-seen name (ordered by batch, then report
 *   date), so a rename never moves it; a slug taken by an override or by a market seen earlier
 *   gets `-<code>` appended; at most 64 characters.
 * - name and exchange: the override's, else the two parts of the latest published name.
 * - names: every published name with its first and last report date.
 * - mic: the override's, else from the exchange code; sector: the override's, else from the
 *   market's subgroup code, else from the subgroup its commodity code has in other files.
 * - report_types: the served types with data (futures only, `_combined`, `cit`) plus the
 *   override's, in its order first.
 * - first_report, last_report: the market's first and last report date in any report type;
 *   active: reported in the latest report date of one of its report types (each type is its own
 *   family: the legacy files may end a year before the TFF ones).
 * - replaces, replaced_by: the codes (with slugs) the files show handing over to one another
 *   (LINEAGE_CTES).
 */
export async function createCotMarketTable(connection: DuckDBConnection): Promise<void> {
  const order = `[${REPORT_TYPE_ORDER.map(quotedString).join(', ')}]`;
  const served = `[${SERVED_COT_REPORT_TYPES.map(quotedString).join(', ')}]`;
  await execute(
    connection,
    `CREATE TABLE cot_markets AS
     WITH reports AS (
       SELECT market_code AS code, market_name, period, batch_id, report_type, scope,
              -- The name endpoint 3 serves the report under (api/v1/cot-report.ts cotSeriesKey).
              CASE WHEN report_type = 'cit' THEN 'cit'
                   WHEN scope = 'combined' THEN report_type || '_combined' ELSE report_type END AS served_type,
              exchange_code, region_code, commodity_code, subgroup_code,
              -- The CFTC writes "<market> - <exchange>"; the greedy group ends at the last " - ".
              coalesce(nullif(trim(regexp_extract(market_name, '^(.*) - (.*)$', 1)), ''), market_name) AS market_part,
              nullif(trim(regexp_extract(market_name, '^(.*) - (.*)$', 2)), '') AS exchange_part
         FROM cot_reports),
     commodity_subgroups AS (
       SELECT commodity_code, mode(subgroup_code) AS subgroup_code
         FROM reports WHERE subgroup_code IS NOT NULL AND commodity_code IS NOT NULL
        GROUP BY commodity_code),
     per_code AS (
       SELECT code,
              arg_min(market_part, [batch_id, period, report_type, market_name]) AS first_name,
              min([batch_id, period]) AS first_seen,
              arg_max(market_part, [period, batch_id, report_type, market_name]) AS latest_name,
              arg_max(exchange_part, [period, batch_id, report_type, market_name]) AS latest_exchange,
              arg_max(exchange_code, [period, batch_id]) FILTER (exchange_code IS NOT NULL) AS exchange_code,
              arg_max(region_code, [period, batch_id]) FILTER (region_code IS NOT NULL) AS region_code,
              arg_max(commodity_code, [period, batch_id]) FILTER (commodity_code IS NOT NULL) AS commodity_code,
              arg_max(subgroup_code, [period, batch_id]) FILTER (subgroup_code IS NOT NULL) AS subgroup_code,
              list(DISTINCT served_type) FILTER (list_contains(${served}, served_type)) AS data_types
         FROM reports GROUP BY code),
     names AS (
       SELECT code, list({'name': market_name, 'first_report': first_report, 'last_report': last_report}
                         ORDER BY first_report, market_name) AS names
         FROM (SELECT code, market_name, min(period) AS first_report, max(period) AS last_report
                 FROM reports GROUP BY code, market_name)
        GROUP BY code),
     type_latest AS (SELECT served_type, max(period) AS latest FROM reports GROUP BY served_type),
     spans AS (
       SELECT r.code, min(r.period) AS first_report, max(r.period) AS last_report,
              bool_or(r.period = t.latest) AS active
         FROM reports r JOIN type_latest t USING (served_type)
        GROUP BY r.code),
     ${LINEAGE_CTES},
     merged AS (
       SELECT coalesce(p.code, m.code) AS code, p.*  EXCLUDE (code),
              m.slug AS override_slug, m.name AS override_name, m.exchange AS override_exchange,
              m.mic AS override_mic, m.sector AS override_sector,
              coalesce(m.report_types, []) AS override_types,
              ${slugOf('coalesce(p.first_name, m.name, m.code)')} AS slug_base,
              replace(lower(coalesce(p.code, m.code)), '+', 'plus') AS code_slug
         FROM per_code p FULL JOIN markets m ON m.code = p.code),
     ranked AS (
       SELECT *,
              row_number() OVER (PARTITION BY override_slug IS NULL, slug_base
                                 ORDER BY first_seen NULLS LAST, code) AS base_rank
         FROM merged),
     listed AS (
     SELECT r.code,
            coalesce(r.override_slug,
                     CASE WHEN r.slug_base = '' THEN r.code_slug
                          WHEN r.base_rank = 1
                               AND r.slug_base NOT IN (SELECT override_slug FROM merged WHERE override_slug IS NOT NULL)
                          THEN trim(left(r.slug_base, 64), '-')
                          ELSE trim(left(r.slug_base, 63 - length(r.code_slug)), '-') || '-' || r.code_slug END
                    ) AS slug,
            coalesce(r.override_name, r.latest_name, r.code) AS name,
            coalesce(r.override_exchange, r.latest_exchange) AS exchange,
            coalesce(r.override_mic, mic.mic) AS mic,
            coalesce(r.override_sector, exc.sector, own.sector, via.sector) AS sector,
            r.exchange_code, r.region_code, r.commodity_code, r.subgroup_code,
            list_transform(
              list_sort(list_transform(list_distinct(list_concat(r.override_types, coalesce(r.data_types, []))),
                                       t -> {'rank': coalesce(list_position(r.override_types, t), 100) * 10
                                                     + list_position(${order}, t), 'type': t})),
              x -> x.type) AS report_types,
            coalesce(n.names, []) AS names
       FROM ranked r
       LEFT JOIN names n ON n.code = r.code
       LEFT JOIN (SELECT * FROM ${valuesOf(CFTC_EXCHANGE_MICS, 'exchange_code', 'mic')}) mic
              ON mic.exchange_code = r.exchange_code
       LEFT JOIN (SELECT * FROM ${valuesOf(CFTC_COMMODITY_SECTORS, 'commodity_code', 'sector')}) exc
              ON exc.commodity_code = r.commodity_code
       LEFT JOIN (SELECT * FROM ${valuesOf(CFTC_SUBGROUP_SECTORS, 'subgroup_code', 'sector')}) own
              ON own.subgroup_code = r.subgroup_code
       LEFT JOIN commodity_subgroups cs ON cs.commodity_code = r.commodity_code
       LEFT JOIN (SELECT * FROM ${valuesOf(CFTC_SUBGROUP_SECTORS, 'subgroup_code', 'sector')}) via
              ON via.subgroup_code = cs.subgroup_code)
     SELECT l.*, s.first_report, s.last_report, coalesce(s.active, false) AS active,
            ${linkedMarkets('from_code', 'to_code')} AS replaced_by,
            ${linkedMarkets('to_code', 'from_code')} AS replaces
       FROM listed l LEFT JOIN spans s USING (code)`,
  );
}
