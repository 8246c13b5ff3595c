import type { DuckDBConnection } from '@duckdb/node-api';
import { execute, quotedIdentifier, quotedString } from '../db/duckdb.ts';

/**
 * Defines the SQL twins of revisions.ts canonicalJson for scalars: mmds_json_string(s) is
 * JSON.stringify(s) (quote, backslash and control characters escaped as JavaScript does,
 * everything else, Unicode included, as is) and mmds_json_double(x) is JSON.stringify(x)
 * (NaN and infinities as `null`), over mmds_number_text (fact-candidates.ts defineNumberText,
 * which must be defined first). Temporary: per connection.
 */
export async function defineJsonText(connection: DuckDBConnection): Promise<void> {
  // Most text needs no escape: only the rare string with one goes character by character.
  await execute(
    connection,
    String.raw`CREATE OR REPLACE TEMP MACRO mmds_json_string(s) AS CASE
       WHEN s IS NULL THEN 'null'
       WHEN NOT regexp_matches(s, '[\x00-\x1f"\\]') THEN '"' || s || '"'
       ELSE '"' || array_to_string(list_transform(string_split(s, ''), lambda c: CASE
         WHEN c = '"' THEN '\"' WHEN c = '\' THEN '\\'
         WHEN c = chr(8) THEN '\b' WHEN c = chr(12) THEN '\f' WHEN c = chr(10) THEN '\n'
         WHEN c = chr(13) THEN '\r' WHEN c = chr(9) THEN '\t'
         WHEN unicode(c) < 32 THEN printf('\u%04x', unicode(c))
         ELSE c END), '') || '"'
     END`,
  );
  await execute(
    connection,
    `CREATE OR REPLACE TEMP MACRO mmds_json_double(x) AS CASE
       WHEN x IS NULL OR isnan(x) OR isinf(x) THEN 'null' ELSE mmds_number_text(x) END`,
  );
}

/**
 * SQL text of the canonical JSON (revisions.ts canonicalJson) of a JavaScript object holding
 * the given columns, each typed as DuckDB `type`: keys sorted as JavaScript sorts strings, SQL
 * NULL as `null`. A column left out is a key the object lacks (undefined), as JSON drops it.
 */
export function canonicalJsonSql(
  columns: ReadonlyArray<[name: string, expression: string, type: string]>,
  depth = 0,
): string {
  const entries = [...columns].sort(([a], [b]) => compare(a, b));
  // The text and double fields are each laid out by one list_transform, so that their macros are
  // expanded (bound) once per object rather than once per field: binding dominated otherwise.
  const groups = [
    { type: 'VARCHAR', macro: 'mmds_json_string', list: `mmds_s${depth}`, items: [] as string[] },
    { type: 'DOUBLE', macro: 'mmds_json_double', list: `mmds_d${depth}`, items: [] as string[] },
  ];
  const parts = entries.map(([name, expression, type], index) => {
    const key = quotedString(`${index === 0 ? '' : ','}${JSON.stringify(name)}:`);
    const group = groups.find((candidate) => candidate.type === type.trim().toUpperCase());
    if (group === undefined) return `${key} || ${jsonSql(expression, type, depth + 1)}`;
    group.items.push(expression);
    return `${key} || ${group.list}[${group.items.length}]`;
  });
  let sql = parts.length === 0 ? `'{}'` : `('{' || ${parts.join(' || ')} || '}')`;
  for (const group of groups) {
    if (group.items.length === 0) continue;
    const item = `mmds_x${depth}`;
    const texts = `list_transform([${group.items.join(', ')}], lambda ${item}: ${group.macro}(${item}))`;
    sql = `list_transform([${texts}], lambda ${group.list}: ${sql})[1]`;
  }
  return sql;
}

/** SQL text of JSON.stringify of a value of a DuckDB type, as canonicalJson lays it out. */
function jsonSql(expression: string, type: string, depth: number): string {
  const trimmed = type.trim();
  if (trimmed.endsWith('[]')) {
    const element = trimmed.slice(0, -2);
    const item = `mmds_e${depth}`;
    return `CASE WHEN ${expression} IS NULL THEN 'null' ELSE '[' || array_to_string(list_transform(${expression},
      lambda ${item}: ${jsonSql(item, element, depth + 1)}), ',') || ']' END`;
  }
  const struct = /^STRUCT\((.*)\)$/is.exec(trimmed);
  if (struct !== null) {
    const fields = splitFields(struct[1] ?? '').map(([name, fieldType]): [string, string, string] => [
      name,
      `struct_extract(${expression}, ${quotedString(name)})`,
      fieldType,
    ]);
    return `CASE WHEN ${expression} IS NULL THEN 'null' ELSE ${canonicalJsonSql(fields, depth + 1)} END`;
  }
  switch (trimmed.toUpperCase()) {
    case 'VARCHAR':
      return `mmds_json_string(${expression})`;
    case 'DOUBLE':
      return `mmds_json_double(${expression})`;
    case 'TINYINT':
    case 'SMALLINT':
    case 'INTEGER':
    case 'BOOLEAN':
      return `coalesce(${expression}::VARCHAR, 'null')`;
    default:
      throw new Error(`no canonical JSON in SQL for type ${type}`);
  }
}

/** The `name TYPE` fields of a STRUCT type's body, split at its top-level commas. */
function splitFields(body: string): Array<[string, string]> {
  const fields: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < body.length; index++) {
    const char = body[index];
    if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === ',' && depth === 0) {
      fields.push(body.slice(start, index));
      start = index + 1;
    }
  }
  fields.push(body.slice(start));
  return fields.map((field) => {
    const [, name = '', type = ''] = /^\s*("(?:[^"]|"")*"|\S+)\s+(.+)$/s.exec(field) ?? [];
    return [name.startsWith('"') ? name.slice(1, -1).replaceAll('""', '"') : name, type];
  });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** SQL text of a row's content hash: sha256 hex of the canonical JSON of the given columns. */
export function contentHashSql(columns: ReadonlyArray<[name: string, type: string]>, alias: string): string {
  return `sha256(${canonicalJsonSql(
    columns.map(([name, type]) => [name, `${quotedIdentifier(alias)}.${quotedIdentifier(name)}`, type]),
  )})`;
}
