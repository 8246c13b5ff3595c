import type { ObservationInput } from '../model/records.ts';
import { InputError } from './input-error.ts';

/** An observation with the file and line (null in JSON) it was read from, for error messages. */
export interface LocatedObservation {
  observation: ObservationInput;
  file: string;
  line: number | null;
  /** What to tell the user when two values clash at one knowledge time. */
  clashHint?: string;
}

/** What two records of one (series, period, knowledge time) mean for a format. */
export type RepeatRule =
  /** Each value appears once in such files: any second record is an error. */
  | { kind: 'refuse' }
  /** Overlapping files may repeat a record: the same value is kept once, another value is an error. */
  | { kind: 'keep-equal' };

/**
 * Sorts observations by series, period and knowledge time and applies the format's rule to
 * records that share all three (values of one period are revisions only at different times).
 */
export function sortLocatedObservations(located: LocatedObservation[], rule: RepeatRule): ObservationInput[] {
  located.sort((a, b) => compareKeys(a.observation, b.observation));
  const kept: ObservationInput[] = [];
  for (const [index, current] of located.entries()) {
    const previous = located[index - 1];
    if (previous && compareKeys(previous.observation, current.observation) === 0) {
      const { series_key, period, observed_at, value } = current.observation;
      if (rule.kind === 'refuse') {
        throw new InputError(
          current.file,
          current.line,
          `duplicate value for ${series_key} ${period} observed at ${observed_at} (also ${previous.observation.source_ref})`,
        );
      }
      if (previous.observation.value === value) continue;
      throw new InputError(
        current.file,
        current.line,
        `${series_key} ${period} observed at ${observed_at} is also in ${previous.observation.source_ref} ` +
          `with a different value (${value} here, ${previous.observation.value} there)` +
          (current.clashHint ? `: ${current.clashHint}` : ''),
      );
    }
    kept.push(current.observation);
  }
  return kept;
}

function compareKeys(a: ObservationInput, b: ObservationInput): number {
  for (const field of ['series_key', 'period', 'observed_at'] as const) {
    if (a[field] !== b[field]) return a[field] < b[field] ? -1 : 1;
  }
  return 0;
}
