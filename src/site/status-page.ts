import type { ReplicaStatus } from '../store/object-store/follow-store.ts';
import { escapeHtml } from './escape-html.ts';
import { formatTimestamp, MISSING } from './format.ts';
import { renderDocument } from './layout.ts';

/** One source of the status payload (`GET /api/v1/status`, `data.sources[]`). */
export interface StatusSource {
  id: string;
  name: string;
  sample: boolean;
  cadence: string;
  series_count: number;
  last_period: string | null;
  last_observed_at: string | null;
  next_release_due: string | null;
  /** `calendar` (BLS, CFTC, ECB: the release calendars) or `estimate` (from the cadence). */
  next_release_basis?: 'calendar' | 'estimate' | null;
  stale_after_days: number;
  stale: boolean | null;
}

/** The `data` of the status payload. */
export interface StatusData {
  service: string;
  freshness: string;
  checked_at: string;
  snapshot: { id: string; published_at: string; parent: string | null; pipeline_version: string };
  /** An instance following a bucket (ReplicaStatus); null or absent otherwise. */
  replica?: ReplicaStatus | null;
  sources: StatusSource[];
}

/** How the status page was produced. */
export interface StatusPageOptions {
  /** True when the server renders it per request; false for the copy written by `mmds build`. */
  live: boolean;
}

/** A source's state in words, so that it never rests on colour alone. */
function describeState(stale: boolean | null): { label: string; tone: string } {
  if (stale === null) return { label: 'no data', tone: 'none' };
  return stale ? { label: 'stale', tone: 'stale' } : { label: 'fresh', tone: 'fresh' };
}

/** A table cell with its column's name, which a phone shows beside the value (site.css). */
function cell(label: string, html: string, className?: string): string {
  return `<td data-label="${escapeHtml(label)}"${className ? ` class="${className}"` : ''}>${html}</td>`;
}

/** The next release cell: its time, and whether a calendar gives it or it is an estimate. */
function nextRelease(source: StatusSource): string {
  const basis = source.next_release_basis ?? null;
  const html = time('Next release due', source.next_release_due);
  return basis === null ? html : html.replace(/<\/td>$/, ` <small>(${basis})</small></td>`);
}

/** A table cell holding a timestamp: the date and the time each kept whole. */
function time(label: string, value: string | null): string {
  const text = formatTimestamp(value);
  const at = text.indexOf(' ');
  const html =
    at < 0
      ? text
      : `<span class="nowrap">${text.slice(0, at)}</span> <span class="nowrap">${text.slice(at + 1)}</span>`;
  return cell(label, html, 'time');
}

/** A labelled state badge (`fresh`, `stale`, `partially stale`, `no data`). */
export function renderBadge(label: string, tone: string): string {
  return `<span class="badge badge-${escapeHtml(tone)}">${escapeHtml(label)}</span>`;
}

/**
 * The per-source freshness table of the status payload; the home page shows its compact form
 * (sources with data only, fewer columns).
 */
export function renderFreshnessTable(sources: readonly StatusSource[], options: { compact?: boolean } = {}) {
  const rows = options.compact ? sources.filter((s) => s.stale !== null) : sources;
  const head = options.compact
    ? ['Source', 'Last period', 'Last observed', 'State']
    : ['Source', 'Cadence', 'Last period', 'Last observed', 'Next release due', 'Stale after', 'State'];
  const body = rows.map((source) => {
    const state = describeState(source.stale);
    const name = `${escapeHtml(source.name)}${source.sample ? ' <small>(sample data)</small>' : ''}`;
    const cells = options.compact
      ? [
          cell('Last period', escapeHtml(source.last_period ?? MISSING), 'nowrap'),
          time('Last observed', source.last_observed_at),
        ]
      : [
          cell('Cadence', escapeHtml(source.cadence)),
          cell('Last period', escapeHtml(source.last_period ?? MISSING), 'nowrap'),
          time('Last observed', source.last_observed_at),
          nextRelease(source),
          cell('Stale after', `${source.stale_after_days} days`, 'nowrap'),
        ];
    return `<tr><th scope="row">${name}</th>${cells.join('')}${cell('State', renderBadge(state.label, state.tone), 'state')}</tr>`;
  });
  // The table wraps to the page's width and stacks its rows on a phone: no column is ever cut off.
  return [
    `<div class="table-scroll"><table class="freshness${options.compact ? ' compact' : ''}">`,
    `<thead><tr>${head.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead>`,
    `<tbody>${body.join('')}</tbody>`,
    '</table></div>',
  ].join('');
}

/** Where an instance following a bucket stands against its commit log, in words. */
function renderReplica(replica: ReplicaStatus): string[] {
  const position =
    replica.seq === null
      ? 'a snapshot not in the log it has read'
      : `commit ${replica.seq} of ${replica.log_seq ?? '?'}`;
  const behind =
    replica.behind_commits === null
      ? 'unknown'
      : replica.behind_commits === 0
        ? 'up to date'
        : `${replica.behind_commits} commit(s)${replica.behind_seconds === null ? '' : `, ${replica.behind_seconds} s`}`;
  return [
    `<dt>Follows</dt><dd><code>${escapeHtml(replica.store)}</code>: ${position}</dd>`,
    `<dt>Behind the log</dt><dd>${behind}</dd>`,
    ...(replica.last_error
      ? [
          `<dt>Last pull failed</dt><dd>${formatTimestamp(replica.last_error.at)}: ${escapeHtml(replica.last_error.message)}</dd>`,
        ]
      : []),
  ];
}

/**
 * Renders the status page, a whole HTML document in the site's layout, from the status
 * payload. `mmds build` writes it with the payload of the build time; the server can render it
 * per request from the live payload, so both paths share this one renderer.
 */
export function renderStatusPage(statusPayload: { data: StatusData }, options: StatusPageOptions): string {
  const status = statusPayload.data;
  const overall = status.freshness.replace(/_/g, ' ');
  const when = options.live
    ? `Checked live at ${formatTimestamp(status.checked_at)}.`
    : `This copy was rendered when the site was built, at ${formatTimestamp(status.checked_at)}; the live state is always at <a href="/api/v1/status">/api/v1/status</a>.`;
  const snapshot = status.snapshot;
  const main = [
    '<h1>Status</h1>',
    `<p class="lead">Service: <strong>${escapeHtml(status.service)}</strong>. Data freshness: ${renderBadge(overall, status.freshness === 'fresh' ? 'fresh' : 'stale')}</p>`,
    `<p class="checked-at">${when}</p>`,
    '<h2>Snapshot in service</h2>',
    '<dl class="facts">',
    `<dt>Snapshot</dt><dd><code class="snapshot-id">${escapeHtml(snapshot.id)}</code></dd>`,
    `<dt>Published</dt><dd>${formatTimestamp(snapshot.published_at)}</dd>`,
    `<dt>Previous snapshot</dt><dd>${snapshot.parent ? `<code>${escapeHtml(snapshot.parent)}</code>` : 'none'}</dd>`,
    `<dt>Pipeline version</dt><dd>${escapeHtml(snapshot.pipeline_version)}</dd>`,
    ...(status.replica ? renderReplica(status.replica) : []),
    '</dl>',
    '<h2>Sources</h2>',
    '<p>A source is <em>stale</em> when nothing new has been observed for longer than its allowance (<em>stale after</em>). For BLS, CFTC and ECB the next release comes from their release calendars (<a href="/releases/">release calendar</a>); for other sources it is an estimate from the cadence, holidays not modelled.</p>',
    renderFreshnessTable(status.sources),
    '<p>Machine-readable: <a href="/api/v1/status">/api/v1/status</a>.</p>',
  ].join('\n');
  return renderDocument(
    {
      title: 'Status',
      path: '/status/',
      description: 'Service status and data freshness per source.',
      snapshot: snapshot.id,
      renderedAt: status.checked_at,
      live: options.live,
    },
    main,
  );
}
