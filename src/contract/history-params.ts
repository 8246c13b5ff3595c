/**
 * The query parameter lists the history endpoints of several route families share: range, as_of,
 * paging and format (HISTORY: endpoints 3, 5, 8, 20, 21 and 23), the FRED-style transforms and the
 * revisions' `shape`.
 */
import type { ParamName } from './params.ts';

/** The keyed history parameters: as_of, the period range, order, paging, format and fields. */
export const HISTORY: readonly ParamName[] = [
  'as_of',
  'from',
  'to',
  'observation_start',
  'observation_end',
  'limit',
  'cursor',
  'sort_order',
  'format',
  'fields',
];
/** The transforms of endpoints 5 and 8 (docs/api/transforms.md). */
export const TRANSFORMS: readonly ParamName[] = ['units', 'frequency', 'aggregation'];
/** The parameters of the revisions endpoints (docs/api/revisions.md). */
export const REVISIONS: readonly ParamName[] = [...HISTORY, 'shape'];
