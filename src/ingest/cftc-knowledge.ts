import { basename } from 'node:path';
import { CFTC_WEEKLY_SCHEDULE_KNOWN_FROM } from '../calendar/cftc-release-rule.ts';
import type { CotScope, KnowledgeMethod, KnowledgeTime, Timestamp } from '../model/records.ts';
import type { ReportLayout } from './cftc-columns.ts';
import { InputError } from './input-error.ts';
import type { IngestContext } from './source.ts';

/** The knowledge-time fields of one report. */
export interface CftcKnowledge {
  observed_at: Timestamp;
  observed_at_method: KnowledgeMethod;
  correction?: KnowledgeTime;
}

/**
 * Member names the CFTC gives its legacy futures-and-options combined files (`annualof.txt` in
 * `deahistfo<year>.zip`, the weekly `deacom.txt`, `Com95_16.txt` in the multi-year zip), so that
 * ingesting one by hand without `scope` cannot file its figures under the futures-only series.
 */
const LEGACY_COMBINED_NAMES = /^(annualof|deacom|com\d{2}_\d{2})\.txt$/i;

const SCOPE_VALUES: Readonly<Record<string, CotScope>> = { FutOnly: 'futures_only', Combined: 'combined' };

/**
 * Returns a function giving each report date's knowledge time: the CFTC release calendar
 * (published exceptions included), or `options.observedAt`. A correction of a stored report is
 * dated at the collection time when that is known, never back to the original release. A report
 * older than any release schedule we know (biweekly and monthly eras, before 2003-11-25) is dated
 * by its collection time, the only time known not to be early; without one it is refused.
 */
export function createCftcKnowledge(context: IngestContext): (period: string) => CftcKnowledge {
  const { observedAt } = context.options;
  const collectedAt = context.collectedAt;
  const correction: Pick<CftcKnowledge, 'correction'> =
    collectedAt === null ? {} : { correction: { observed_at: collectedAt, method: 'collected' } };
  const cache = new Map<string, CftcKnowledge>();
  return (period) => {
    const known = cache.get(period);
    if (known !== undefined) return known;
    let knowledge: CftcKnowledge;
    if (observedAt !== undefined) {
      knowledge = { observed_at: observedAt, observed_at_method: 'collected', ...correction };
    } else if (period < CFTC_WEEKLY_SCHEDULE_KNOWN_FROM) {
      if (collectedAt === null) {
        throw new Error(
          `COT report of ${period} is older than every CFTC release schedule known (weekly Friday ` +
            `releases are shown from the report of ${CFTC_WEEKLY_SCHEDULE_KNOWN_FROM} on), so no rule dates ` +
            'its release: give --collected-at (or --observed-at) for this file',
        );
      }
      knowledge = { observed_at: collectedAt, observed_at_method: 'collected', ...correction };
    } else {
      // A collection time before the release is not taken as proof of an early release: the
      // ingest's bounds check refuses it (src/ingest/knowledge-bounds.ts), naming the release.
      const release = context.calendars.cftc.releaseOf(period);
      knowledge = { observed_at: release.observed_at, observed_at_method: release.method, ...correction };
    }
    cache.set(period, knowledge);
    return knowledge;
  };
}

/** The scope a file is declared in: by the caller, by the layout, by the CFTC's file name, else futures only. */
export function resolveFileScope(
  file: string,
  layout: ReportLayout,
  context: IngestContext,
): CotScope | null {
  const asked = context.options.scope;
  if (asked !== undefined && asked !== 'futures_only' && asked !== 'combined') {
    throw new InputError(file, null, `scope must be futures_only or combined, got "${String(asked)}"`);
  }
  if (layout.fixedScope !== null) {
    if (asked !== undefined && asked !== layout.fixedScope) {
      throw new InputError(file, 1, `a ${layout.reportType} file is ${layout.fixedScope}, not ${asked}`);
    }
    return layout.fixedScope;
  }
  if (asked !== undefined) return asked;
  // Files with a scope column say it on every row; the caller's null lets the rows decide.
  if (layout.scope !== null) return null;
  return LEGACY_COMBINED_NAMES.test(basename(file)) ? 'combined' : 'futures_only';
}

/**
 * The scope of one row of a file with a `FutOnly_or_Combined` column; `declared` is the scope
 * the caller asked for, which the row must agree with. Returns an error message or the scope.
 */
export function readRowScope(value: string, declared: CotScope | null): CotScope | string {
  const scope = SCOPE_VALUES[value];
  if (scope === undefined) return `expected FutOnly or Combined, got "${value}"`;
  if (declared !== null && declared !== scope) return `says ${value} but the files were declared ${declared}`;
  return scope;
}
