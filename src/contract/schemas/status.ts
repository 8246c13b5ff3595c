import { FREQUENCIES } from '../../model/records.ts';
import {
  boolean,
  integer,
  type JsonSchema,
  nullable,
  object,
  oneOfText,
  period,
  text,
  timestamp,
} from './json-schema.ts';

import { NEXT_RELEASE } from './releases.ts';

/** Endpoint 1: the snapshot in service and the freshness of every catalog source. */
export const STATUS_DATA: JsonSchema = object({
  service: { type: 'string', const: 'ok', description: 'Always `ok` when the server can answer.' },
  freshness: oneOfText(
    ['fresh', 'partially_stale', 'stale'],
    '`stale` when every source with data is stale, `partially_stale` when some are, else `fresh`.',
  ),
  checked_at: timestamp('The instant staleness was computed at (the request time).'),
  snapshot: object({
    id: text('Snapshot id.'),
    published_at: timestamp('When the snapshot was published.'),
    parent: nullable(text('The snapshot it was made after, or null for the first.')),
    pipeline_version: text('Version of mmds that published it.'),
  }),
  snapshots: {
    type: 'array',
    description:
      'The snapshots the store still holds, newest first (the current one included): the ids /api/v1/changes accepts as since. Older ones are pruned.',
    items: object({
      id: text('Snapshot id.'),
      created_at: timestamp('When it was published.'),
    }),
  },
  replica: nullable(
    object(
      {
        store: text('The bucket the instance follows, `s3://bucket/prefix` (never credentials).'),
        log_seq: nullable(
          integer(
            "The newest readable commit of the bucket's log the instance has read (an unreadable entry is passed over); null before its first read.",
            {
              minimum: 1,
            },
          ),
        ),
        log_checked_at: nullable(timestamp("When the instance last read the log's end successfully.")),
        seq: nullable(
          integer(
            'The commit (log entry) of the snapshot in service, also right after a restart and while newer commits are damaged; null only while the log has never been read, or when that snapshot is not among the newest 64 log entries.',
            { minimum: 1 },
          ),
        ),
        behind_commits: nullable(
          integer(
            'Log entries (as last read) newer than the snapshot in service, damaged commits the instance cannot pull included; 0 when current. Alert when it stays above 0.',
            {
              minimum: 0,
            },
          ),
        ),
        behind_seconds: nullable(
          integer(
            'Seconds since the first commit the instance does not serve was made; 0 when current, null when unknown.',
            { minimum: 0 },
          ),
        ),
        last_error: nullable(
          object({
            message: text(
              'What failed: the bucket unreachable, or an object refused as damaged (it keeps serving its snapshot meanwhile).',
            ),
            at: timestamp('When it last failed.'),
          }),
        ),
      },
      "Instances that follow a bucket (`mmds serve --from s3://…`): where the instance stands against the bucket's commit log. Null for a server on its own data directory and in the static build.",
    ),
  ),
  sources: {
    type: 'array',
    description: 'Every catalog source, by id.',
    items: object({
      id: text('Catalog source id.'),
      name: text(),
      sample: boolean('True for invented demo data.'),
      cadence: oneOfText(FREQUENCIES, 'How often the source publishes.'),
      series_count: integer('Series (and COT report series) of the source that hold data.', { minimum: 0 }),
      last_period: nullable(period('Newest reference period held.')),
      last_observed_at: nullable(
        timestamp(
          'Newest knowledge time (observed_at) held; for a reference list (tz, iso4217, mic, m49, countries), which holds no observations, the time its list was loaded.',
        ),
      ),
      next_release_due: nullable(
        timestamp(
          'When the next release is due: for BLS, CFTC and ECB the next release their calendar schedules (next_release_basis `calendar`, details in next_release); otherwise an estimate from the last one and the cadence, holidays not modelled (`estimate`).',
        ),
      ),
      next_release_basis: nullable(
        oneOfText(
          ['calendar', 'estimate'],
          'Where next_release_due comes from; null without data and calendar.',
        ),
      ),
      next_release: nullable(NEXT_RELEASE),
      stale_after_days: integer('Days without news after which the source counts as stale.', { minimum: 1 }),
      stale: nullable(boolean('Whether the source is stale now; null without data.')),
    }),
  },
});
