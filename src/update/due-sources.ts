import { blsReleaseForSeries } from '../calendar/bls-calendar.ts';
import { ecbReleaseTime } from '../calendar/ecb-calendar.ts';
import type { BlsRelease, Calendars } from '../calendar/types.ts';
import { addDays } from '../lib/zoned-time.ts';
import type { StoreSummary } from '../store/read-store-summary.ts';
import type { UpdateState } from './update-state.ts';

/** Whether a source is due, and why, in words an operator can check. */
export interface DueDecision {
  source: string;
  due: boolean;
  reason: string;
}

/** What the due rules look at. */
export interface DueInput {
  now: Date;
  summary: StoreSummary;
  state: UpdateState;
  calendars: Calendars;
  /** Sources that cannot run here (e.g. FRED without an API key), with the reason. */
  unavailable: Readonly<Record<string, string>>;
}

/** Reference lists change rarely; a weekly conditional GET costs the publisher one 304. */
const REFERENCE_RECHECK_DAYS = 7;
/** Past the end of a shipped calendar, fall back to a weekly check (and say so). */
const FALLBACK_RECHECK_DAYS = 7;
const DAY_MS = 86_400_000;

/**
 * Decides which sources `mmds update` fetches now: a source never fetched is due; the ECB when
 * the next working day's rates are out; the CFTC when the next weekly report's release (by its
 * calendar) has passed since the last fetch; BLS and FRED when a release of a catalogued series'
 * program has passed since the last fetch; reference lists weekly.
 */
export function decideDue(sources: readonly string[], input: DueInput): DueDecision[] {
  return sources.map((source) => {
    const unavailable = input.unavailable[source];
    if (unavailable !== undefined) return { source, due: false, reason: unavailable };
    const last = input.state.sources[source]?.last_success ?? null;
    if (last === null) return { source, due: true, reason: 'never fetched successfully' };
    const decide = RULES[source] ?? referenceRule;
    return { source, ...decide(input, new Date(last)) };
  });
}

type Rule = (input: DueInput, lastSuccess: Date) => { due: boolean; reason: string };

const referenceRule: Rule = ({ now }, last) =>
  sinceRule(now, last, REFERENCE_RECHECK_DAYS, 'weekly check of the list');

const RULES: Record<string, Rule> = {
  ecb({ now, summary }, last) {
    const latest = summary.sources.ecb?.last_period;
    if (!latest) return { due: true, reason: 'no ECB rates stored' };
    const next = nextWeekday(latest);
    const release = ecbReleaseTime(next).observed_at;
    return releaseRule(now, last, release, `rates of ${next} (published about ${release})`);
  },
  cftc({ now, summary, calendars }, last) {
    const latest = summary.sources.cftc?.last_period;
    if (!latest) return { due: true, reason: 'no COT reports stored' };
    const next = addDays(latest, 7);
    const release = calendars.cftc.releaseOf(next).observed_at;
    return releaseRule(now, last, release, `COT report of ${next} (released ${release})`);
  },
  bls: (input, last) => blsRule(input, last, 'bls'),
  fred: (input, last) => blsRule(input, last, 'fred'),
};

function blsRule(input: DueInput, last: Date, source: 'bls' | 'fred'): { due: boolean; reason: string } {
  const { now, summary, calendars } = input;
  const ids =
    source === 'bls' ? summary.blsSeries : summary.fredSeries.map((s) => s.seriesKey.split('.')[1] ?? '');
  const releases = new Set(ids.map(blsReleaseForSeries).filter((r): r is BlsRelease => r !== null));
  let newest: { release: BlsRelease; period: string; at: string } | null = null;
  for (const release of releases) {
    const latest = calendars.bls.latestReleaseAtOrBefore(release, now.toISOString());
    if (latest && (newest === null || latest.time.observed_at > newest.at)) {
      newest = { release, period: latest.reference_period, at: latest.time.observed_at };
    }
  }
  const calendarEnded = [...releases].some((release) => {
    const end = calendars.bls.coverageEnd(release);
    return end !== null && end < now.toISOString().slice(0, 10);
  });
  if (newest === null || calendarEnded) {
    const why = calendarEnded
      ? 'the shipped BLS calendar has ended (refresh data/calendars/): weekly check'
      : 'no release known: weekly check';
    return sinceRule(now, last, FALLBACK_RECHECK_DAYS, why);
  }
  return releaseRule(now, last, newest.at, `${newest.release} for ${newest.period} (released ${newest.at})`);
}

function releaseRule(
  now: Date,
  last: Date,
  releaseAt: string,
  what: string,
): { due: boolean; reason: string } {
  const release = new Date(releaseAt);
  if (release > now) return { due: false, reason: `next: ${what}` };
  if (last < release) return { due: true, reason: `${what}, not fetched since` };
  return { due: false, reason: `up to date: ${what} fetched at ${last.toISOString()}` };
}

function sinceRule(now: Date, last: Date, days: number, why: string): { due: boolean; reason: string } {
  const dueAt = new Date(last.getTime() + days * DAY_MS);
  return now >= dueAt
    ? { due: true, reason: `${why}: last fetched ${last.toISOString()}` }
    : { due: false, reason: `${why}: next after ${dueAt.toISOString()}` };
}

function nextWeekday(date: string): string {
  let next = addDays(date, 1);
  while ([0, 6].includes(new Date(`${next}T12:00:00Z`).getUTCDay())) next = addDays(next, 1);
  return next;
}
