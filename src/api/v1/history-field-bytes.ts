import { OBSERVATION_FIELDS, presentedRowOf, type RevisionBlock } from '../../query/revision-block.ts';
import { type CachedPage, deriveFromBlock } from '../../query/revision-cache.ts';
import type { SnapshotDb } from '../../query/snapshot-db.ts';
import { renderCsv, renderCsvCell } from './csv.ts';

/**
 * `fields=` on a page of endpoints 5 and 8 put together from row bytes (issue 35 item 3 on the
 * design of issue 33): a selected row is the concatenation of the selected fields' bytes, each
 * serialised once per block, never a row stringified per request. JSON: where each field's
 * `"name":value` lies inside the row bytes the block already holds (offsets, made on the first
 * such request); CSV: each field's cell, made once on the first CSV request with fields. Both are
 * derived forms of the block (revision-cache.ts deriveFromBlock), charged to the cache like the
 * CSV lines. `in_force` is decided per page, as on the full rows. The bodies are byte for byte
 * the full page with the other fields left out (test/integration/api/field-selection.test.ts).
 */

const FIELD_COUNT = OBSERVATION_FIELDS.length;
const IN_FORCE = FIELD_COUNT - 1;
const IN_FORCE_KEY = '"in_force":';

/** The positions of the selected fields in OBSERVATION_FIELDS (the row's order). */
export function selectedFieldIndices(fields: ReadonlySet<string>): number[] {
  return OBSERVATION_FIELDS.flatMap((name, k) => (fields.has(name) ? [k] : []));
}

/**
 * Per row i and field k < in_force, the byte offset in block.json where `"name":value` starts:
 * `offsets[i * FIELD_COUNT + k]`; the field ends one byte (its comma) before the next one starts,
 * and in_force's entry is where `"in_force":` starts. The fields are the row bytes' own: each is
 * written as JSON.stringify wrote it into them (revision-block.ts parseBlock), which the last
 * offset landing on `"in_force":` confirms.
 */
function makeJsonOffsets(block: RevisionBlock): { value: Uint32Array; bytes: number } {
  const offsets = new Uint32Array(block.count * FIELD_COUNT);
  for (let i = 0; i < block.count; i++) {
    const row = presentedRowOf(block, i) as Record<string, unknown>;
    let at = block.starts[i]! + 1;
    for (let k = 0; k < IN_FORCE; k++) {
      offsets[i * FIELD_COUNT + k] = at;
      const name = OBSERVATION_FIELDS[k]!;
      at += Buffer.byteLength(`"${name}":${JSON.stringify(row[name])}`) + 1;
    }
    offsets[i * FIELD_COUNT + IN_FORCE] = at;
    if (at + IN_FORCE_KEY.length !== block.starts[i + 1])
      throw new Error(`row ${i} of a revision block is not its fields written in order`);
  }
  return { value: offsets, bytes: offsets.byteLength };
}

/** Each row's CSV cells but in_force's, one after the other: cell (i, k) is `cells[starts[j], starts[j + 1])`, j = i * FIELD_COUNT + k. */
interface CsvCells {
  cells: Buffer;
  starts: Uint32Array;
}

function makeCsvCells(block: RevisionBlock): { value: CsvCells; bytes: number } {
  const texts: string[] = [];
  const starts = new Uint32Array(block.count * FIELD_COUNT + 1);
  let offset = 0;
  for (let i = 0; i < block.count; i++) {
    const row = presentedRowOf(block, i) as Record<string, unknown>;
    for (let k = 0; k < FIELD_COUNT; k++) {
      starts[i * FIELD_COUNT + k] = offset;
      if (k === IN_FORCE) continue;
      const text = renderCsvCell(row[OBSERVATION_FIELDS[k]!]);
      texts.push(text);
      offset += Buffer.byteLength(text);
    }
  }
  starts[block.count * FIELD_COUNT] = offset;
  const value = { cells: Buffer.from(texts.join('')), starts };
  return { value, bytes: value.cells.length + starts.byteLength };
}

const OPEN = 0x7b;
const CLOSE = 0x7d;
const COMMA = 0x2c;
const JSON_TRUE = Buffer.from(`${IN_FORCE_KEY}true`);
const JSON_FALSE = Buffer.from(`${IN_FORCE_KEY}false`);

/**
 * The JSON envelope of a page whose rows keep the fields at `selected` (selectedFieldIndices):
 * `{"data":[{…},…],"meta":{…}}`, as JSON.stringify writes the rows projected.
 */
export function fieldsJsonBody(
  db: SnapshotDb,
  page: CachedPage,
  selected: readonly number[],
  meta: string,
): Buffer {
  const { block, indices, inForce } = page;
  const offsets =
    indices.length === 0 ? new Uint32Array(0) : deriveFromBlock(db, page, 'json-fields', makeJsonOffsets);
  const json = block.json;
  const start = Buffer.from('{"data":[');
  const tail = Buffer.from(`],"meta":${meta}}`);
  const pieces = (i: number, n: number, k: number): [number, number] | Buffer => {
    if (k === IN_FORCE) return inForce[n] ? JSON_TRUE : JSON_FALSE;
    return [offsets[i * FIELD_COUNT + k]!, offsets[i * FIELD_COUNT + k + 1]! - 1];
  };
  let size = start.length + tail.length + Math.max(0, indices.length - 1);
  for (let n = 0; n < indices.length; n++) {
    size += 2 + Math.max(0, selected.length - 1);
    for (const k of selected) {
      const piece = pieces(indices[n]!, n, k);
      size += Array.isArray(piece) ? piece[1] - piece[0] : piece.length;
    }
  }
  const out = Buffer.allocUnsafe(size);
  out.set(start, 0);
  let at = start.length;
  for (let n = 0; n < indices.length; n++) {
    if (n > 0) out[at++] = COMMA;
    out[at++] = OPEN;
    for (let s = 0; s < selected.length; s++) {
      if (s > 0) out[at++] = COMMA;
      const piece = pieces(indices[n]!, n, selected[s]!);
      const bytes = Array.isArray(piece) ? json.subarray(piece[0], piece[1]) : piece;
      out.set(bytes, at);
      at += bytes.length;
    }
    out[at++] = CLOSE;
  }
  out.set(tail, at);
  return out;
}

/** The CSV of a page with rows (renderCsv of its rows projected): the selected columns' header, then their cells per row. */
export function fieldsCsvBody(db: SnapshotDb, page: CachedPage, selected: readonly number[]): Buffer {
  const { indices, inForce } = page;
  const header = Buffer.from(
    renderCsv(
      [],
      selected.map((k) => OBSERVATION_FIELDS[k]!),
    ),
  );
  const { cells, starts } = deriveFromBlock(db, page, 'csv-fields', makeCsvCells);
  const cell = (j: number) => starts[j + 1]! - starts[j]!;
  let size = header.length + indices.length * (2 + selected.length - 1);
  for (let n = 0; n < indices.length; n++)
    for (const k of selected)
      size += k === IN_FORCE ? (inForce[n] ? 4 : 5) : cell(indices[n]! * FIELD_COUNT + k);
  const out = Buffer.allocUnsafe(size);
  out.set(header, 0);
  let at = header.length;
  for (let n = 0; n < indices.length; n++) {
    for (let s = 0; s < selected.length; s++) {
      const k = selected[s]!;
      if (s > 0) out[at++] = COMMA;
      if (k === IN_FORCE) {
        at += out.write(inForce[n] ? 'true' : 'false', at, 'latin1');
        continue;
      }
      const j = indices[n]! * FIELD_COUNT + k;
      out.set(cells.subarray(starts[j]!, starts[j + 1]!), at);
      at += cell(j);
    }
    out[at++] = 0x0d;
    out[at++] = 0x0a;
  }
  return out;
}
