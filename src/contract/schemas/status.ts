import { FREQUENCIES } from '../../model/records.ts';
import * as js from './json-schema.ts';

import { NEXT_RELEASE } from './releases.ts';

/** Endpoint 1: the snapshot in service and the freshness of every catalog source. */
export const STATUS_DATA: js.JsonSchema = js.object({
  service: { type: 'string', const: 'ok', description: 'Always `ok` when the server can answer.' },
  freshness: js.oneOfText(
    ['fresh', 'partially_stale', 'stale'],
    '`stale` when every source with data is stale, `partially_stale` when some are, else `fresh`.',
  ),
  checked_at: js.timestamp('The instant staleness was computed at (the request time).'),
  snapshot: js.object({
    id: js.text('Snapshot id.'),
    published_at: js.timestamp('When the snapshot was published.'),
    parent: js.nullable(js.text('The snapshot it was made after, or null for the first.')),
    pipeline_version: js.text('Version of mmds that published it.'),
  }),
  snapshots: {
    type: 'array',
    description:
      'The snapshots the store still holds, newest first (the current one included): the ids /api/v1/changes accepts as since. Older ones are pruned.',
    items: js.object({
      id: js.text('Snapshot id.'),
      created_at: js.timestamp('When it was published.'),
    }),
  },
  replica: js.nullable(
    js.object(
      {
        store: js.text('The bucket the instance follows, `s3://bucket/prefix` (never credentials).'),
        log_seq: js.nullable(
          js.integer(
            "The newest readable commit of the bucket's log the instance has read (an unreadable entry is passed over); null before its first read.",
            {
              minimum: 1,
            },
          ),
        ),
        log_checked_at: js.nullable(js.timestamp("When the instance last read the log's end successfully.")),
        seq: js.nullable(
          js.integer(
            'The commit (log entry) of the snapshot in service, also right after a restart and while newer commits are damaged; null only while the log has never been read, or when that snapshot is not among the newest 64 log entries.',
            { minimum: 1 },
          ),
        ),
        behind_commits: js.nullable(
          js.integer(
            'Log entries (as last read) newer than the snapshot in service, damaged commits the instance cannot pull included; 0 when current. Alert when it stays above 0.',
            {
              minimum: 0,
            },
          ),
        ),
        behind_seconds: js.nullable(
          js.integer(
            'Seconds since the first commit the instance does not serve was made; 0 when current, null when unknown.',
            { minimum: 0 },
          ),
        ),
        last_error: js.nullable(
          js.object({
            message: js.text(
              'What failed: the bucket unreachable, or an object refused as damaged (it keeps serving its snapshot meanwhile).',
            ),
            at: js.timestamp('When it last failed.'),
          }),
        ),
      },
      "Instances that follow a bucket (`mmds serve --from s3://…`): where the instance stands against the bucket's commit log. Null for a server on its own data directory and in the static build.",
    ),
  ),
  sources: {
    type: 'array',
    description: 'Every catalog source, by id.',
    items: js.object({
      id: js.text('Catalog source id.'),
      name: js.text(),
      sample: js.boolean('True for invented demo data.'),
      cadence: js.oneOfText(FREQUENCIES, 'How often the source publishes.'),
      series_count: js.integer('Series (and COT report series) of the source that hold data.', {
        minimum: 0,
      }),
      last_period: js.nullable(js.period('Newest reference period held.')),
      last_observed_at: js.nullable(
        js.timestamp(
          'Newest knowledge time (observed_at) held; for a reference list (tz, iso4217, mic, m49, countries), which holds no observations, the time its list was loaded.',
        ),
      ),
      next_release_due: js.nullable(
        js.timestamp(
          'When the next release is due: for BLS, CFTC and ECB the next release their calendar schedules (next_release_basis `calendar`, details in next_release); otherwise an estimate from the last one and the cadence, holidays not modelled (`estimate`).',
        ),
      ),
      next_release_basis: js.nullable(
        js.oneOfText(
          ['calendar', 'estimate'],
          'Where next_release_due comes from; null without data and calendar.',
        ),
      ),
      next_release: js.nullable(NEXT_RELEASE),
      stale_after_days: js.integer('Days without news after which the source counts as stale.', {
        minimum: 1,
      }),
      stale: js.nullable(js.boolean('Whether the source is stale now; null without data.')),
    }),
  },
});
