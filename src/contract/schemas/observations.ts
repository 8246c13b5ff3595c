import { DATA_CLASSES, FREQUENCIES, KNOWLEDGE_METHODS, VERIFICATION_STATUSES } from '../../model/records.ts';
import { SINGLE_SOURCE_TERMS } from './envelope.ts';
import {
  arrayOf,
  boolean,
  integer,
  type JsonSchema,
  nullable,
  number,
  object,
  oneOfText,
  period,
  ref,
  text,
  timestamp,
} from './json-schema.ts';

/** How a knowledge-time field (`observed_at`, `released_at`, `published_at`) was established. */
export function knowledgeMethod(field: string): JsonSchema {
  return oneOfText(
    KNOWLEDGE_METHODS,
    `How ${field} was established: \`release_calendar\` the release of the period by the publisher's ` +
      'calendar, `vintage` an ALFRED-style vintage date, `publisher_timestamp` a date the publisher printed, ' +
      '`collected` only when we collected it (corrections, periods no calendar covers), `estimated` from a ' +
      "publisher's announced plan (the latest plausible time), `later_release` collected after a later " +
      'release that could have revised it, so known from the newest such release, not from its first, ' +
      "`release_rule` the publisher's standing rule where its exceptions are not known (COT reports before " +
      '2010), one business day late so that it errs late. ' +
      'Never before the release of the period nor in the future. See docs/data-model.md.',
  );
}

/** Named schemas of the revision-record endpoints (5 and 8). */
export const OBSERVATION_COMPONENTS: Record<string, JsonSchema> = {
  Observation: object(
    {
      id: text('Id of this revision record.'),
      series_key: text('The series, `<source>.<native id>`.'),
      period: period('Reference period.'),
      value: number(),
      source_ref: text('Where the value was read: `<file>:<line>`, `<file>#<document id>` or a URL.'),
      observed_at: timestamp('When the value became known (what as_of filters on).'),
      observed_at_method: knowledgeMethod('observed_at'),
      footnotes: arrayOf(
        object({ code: nullable(text()), text: nullable(text()) }),
        "The publisher's footnotes on this value as printed (BLS: `P` Preliminary, `C` Correction); empty when none.",
      ),
      collector_version: text('The mmds version and parser that stored it.'),
      verification_status: oneOfText(VERIFICATION_STATUSES),
      confidence: number('0 to 1.', { minimum: 0, maximum: 1 }),
      data_class: oneOfText(
        DATA_CLASSES,
        '`official` as published, `derived` computed here from official values, `estimate`.',
      ),
      revision_number: integer('1 for the first record of the period, +1 per revision.', { minimum: 1 }),
      supersedes_id: nullable(text('Id of the previous revision of the same period; null on revision 1.')),
      in_force: boolean(
        'The highest revision of its period among those known at as_of (without as_of: the latest).',
      ),
    },
    'One stored revision of one period, with its provenance.',
  ),
};

/** Endpoints 5 and 8: one page of revision records, sorted by period then revision. */
/** `meta.sort_order` of the history endpoints. */
export const SORT_ORDER = oneOfText(
  ['asc', 'desc'],
  'Row order: asc oldest period first, desc newest first (sort_order; default asc).',
);

export const SERIES_HISTORY = {
  data: arrayOf(ref('Observation')),
  meta: {
    series: object(
      {
        key: text(),
        slug: nullable(text()),
        name: nullable(text()),
        unit: nullable(text()),
        frequency: nullable(oneOfText(FREQUENCIES)),
        source: nullable(text('Catalog source id.')),
      },
      'The series from the catalog; all but key are null for a key the catalog does not list.',
    ),
    as_of: nullable(timestamp('The as_of asked for.')),
    filters: object({ from: nullable(text()), to: nullable(text()) }, 'from and to as asked for.'),
    sort_order: SORT_ORDER,
    next_cursor: nullable(text('Cursor of the next page; null on the last page.')),
    ...SINGLE_SOURCE_TERMS,
  },
};
