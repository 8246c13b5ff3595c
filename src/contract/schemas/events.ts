import { z } from 'zod';
import { EVENT_TYPES } from '../../events/event.ts';
import { MAX_PATTERN_LENGTH, PATTERN_CHARACTERS } from '../../events/series-pattern.ts';
import { PARAMS, type ParamSpec } from '../params.ts';
import { createEnvelope } from './envelope.ts';
import * as js from './json-schema.ts';

/** Events per JSON page of /api/v1/events: default and most. */
export const EVENTS_PAGE_DEFAULT = 100;
export const EVENTS_PAGE_MAX = 1000;

/**
 * A series key pattern of the `series` filter: the rule of `mmds hooks add --series`
 * (src/events/series-pattern.ts): a key with `*` for any characters.
 */
const SERIES_PATTERN = `${PATTERN_CHARACTERS}{1,${MAX_PATTERN_LENGTH}}`;
const SOURCE = '[a-z0-9-]{1,32}';

/** The parameters of /api/v1/events that mean something else there than in PARAMS. */
export const EVENTS_PARAMS: Partial<Record<'limit' | 'source' | 'series', ParamSpec>> = {
  limit: {
    description: `Events per JSON page, 1 to ${EVENTS_PAGE_MAX} (default ${EVENTS_PAGE_DEFAULT}); not used by the stream.`,
    schema: z
      .string()
      .regex(/^[1-9]\d{0,3}$/)
      .transform(Number)
      .refine((n) => n <= EVENTS_PAGE_MAX),
    expected: `a whole number from 1 to ${EVENTS_PAGE_MAX}`,
    openapi: { type: 'integer', minimum: 1, maximum: EVENTS_PAGE_MAX, default: EVENTS_PAGE_DEFAULT },
  },
  source: {
    ...PARAMS.source,
    description: 'Only events of these sources, comma-separated catalog source ids (bls,cftc,ecb).',
    schema: z.string().regex(new RegExp(`^${SOURCE}(,${SOURCE}){0,19}$`)),
    expected: 'catalog source ids, comma-separated, such as bls,ecb',
    openapi: { type: 'string', pattern: `^${SOURCE}(,${SOURCE}){0,19}$` },
  },
  series: {
    description:
      'Only events about these series, comma-separated keys where `*` matches any characters ' +
      '(`bls.CES*,ecb.*`, `*`), up to 20; the rule of `mmds hooks add --series`. A release event ' +
      '(release.published, release.delayed: no series) matches when the part before the first dot ' +
      'matches its source (`ecb.*` gets the ECB releases).',
    schema: z.string().regex(new RegExp(`^${SERIES_PATTERN}(,${SERIES_PATTERN}){0,19}$`)),
    expected: 'series keys or patterns with `*`, comma-separated, such as `bls.CES*,ecb.*`',
    openapi: { type: 'string', pattern: `^${SERIES_PATTERN}(,${SERIES_PATTERN}){0,19}$` },
  },
};

/** One event of the log (src/events/event.ts ReleaseEvent, docs/api/events.md). */
export const EVENT_ITEM = js.object({
  id: js.text(
    '`<snapshot id>:<seq>`, seq from 1 within the snapshot: ids follow the log in order. Resume after it.',
  ),
  type: js.oneOfText(EVENT_TYPES, 'What happened (docs/api/events.md).'),
  snapshot: js.text('The snapshot that made it known.'),
  source: js.text('Catalog source id.'),
  series: js.nullable(
    js.text('The series (or COT report series) key of series.* events; null for releases.'),
  ),
  observed_at: js.timestamp('When the service knew it: the snapshot time, never earlier than the facts.'),
  public: js.boolean('Whether a caller without a key sees it.'),
  scopes: js.arrayOf(
    js.oneOfText(['observations:read', 'cot:history']),
    'The scopes a key needs to see it when it is not public.',
  ),
  data: {
    type: 'object',
    description:
      'The payload of the type (docs/api/events.md): counts, periods, values of small changes, links.',
  },
});

/** Endpoint 24: one page of the event log. */
export const EVENTS_BODY = createEnvelope(js.arrayOf(EVENT_ITEM, 'Events in log order.'), {
  view: js.oneOfText(
    ['public', 'keyed'],
    '`public`: public events only; `keyed` (a key with observations:read): also the events of licensed sources (and, with cot:history, of COT reports older than the public window).',
  ),
  after: js.nullable(js.text('The `after` asked with (null: from the oldest event kept).')),
  next_after: js.nullable(
    js.text('Ask again with after = this to continue: the last event looked at (the filters skip others).'),
  ),
  oldest_snapshot: js.nullable(js.text('The oldest snapshot whose events the log still holds.')),
  limit: js.integer('Events per page asked for.', { minimum: 1 }),
});
