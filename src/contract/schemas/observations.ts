import { DATA_CLASSES, FREQUENCIES, KNOWLEDGE_METHODS, VERIFICATION_STATUSES } from '../../model/records.ts';
import { SINGLE_SOURCE_TERMS } from './envelope.ts';
import * as js from './json-schema.ts';

/** How a knowledge-time field (`observed_at`, `released_at`, `published_at`) was established. */
export function knowledgeMethod(field: string): js.JsonSchema {
  return js.oneOfText(
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
export const OBSERVATION_COMPONENTS: Record<string, js.JsonSchema> = {
  Observation: js.object(
    {
      id: js.text('Id of this revision record.'),
      series_key: js.text('The series, `<source>.<native id>`.'),
      period: js.period('Reference period.'),
      value: js.number(),
      source_ref: js.text('Where the value was read: `<file>:<line>`, `<file>#<document id>` or a URL.'),
      observed_at: js.timestamp('When the value became known (what as_of filters on).'),
      observed_at_method: knowledgeMethod('observed_at'),
      footnotes: js.arrayOf(
        js.object({ code: js.nullable(js.text()), text: js.nullable(js.text()) }),
        "The publisher's footnotes on this value as printed (BLS: `P` Preliminary, `C` Correction); empty when none.",
      ),
      collector_version: js.text('The mmds version and parser that stored it.'),
      verification_status: js.oneOfText(VERIFICATION_STATUSES),
      confidence: js.number('0 to 1.', { minimum: 0, maximum: 1 }),
      data_class: js.oneOfText(
        DATA_CLASSES,
        '`official` as published, `derived` computed here from official values, `estimate`.',
      ),
      revision_number: js.integer('1 for the first record of the period, +1 per revision.', { minimum: 1 }),
      supersedes_id: js.nullable(
        js.text('Id of the previous revision of the same period; null on revision 1.'),
      ),
      in_force: js.boolean(
        'The highest revision of its period among those known at as_of (without as_of: the latest).',
      ),
    },
    'One stored revision of one period, with its provenance.',
  ),
};

/** Endpoints 5 and 8: one page of revision records, sorted by period then revision. */
/** `meta.sort_order` of the history endpoints. */
export const SORT_ORDER = js.oneOfText(
  ['asc', 'desc'],
  'Row order: asc oldest period first, desc newest first (sort_order; default asc).',
);

export const SERIES_HISTORY = {
  data: js.arrayOf(js.ref('Observation')),
  meta: {
    series: js.object(
      {
        key: js.text(),
        slug: js.nullable(js.text()),
        name: js.nullable(js.text()),
        unit: js.nullable(js.text()),
        frequency: js.nullable(js.oneOfText(FREQUENCIES)),
        source: js.nullable(js.text('Catalog source id.')),
      },
      'The series from the catalog; all but key are null for a key the catalog does not list.',
    ),
    as_of: js.nullable(js.timestamp('The as_of asked for.')),
    filters: js.object(
      { from: js.nullable(js.text()), to: js.nullable(js.text()) },
      'from and to as asked for.',
    ),
    sort_order: SORT_ORDER,
    next_cursor: js.nullable(js.text('Cursor of the next page; null on the last page.')),
    ...SINGLE_SOURCE_TERMS,
  },
};
