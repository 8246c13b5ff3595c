/**
 * The refusal of an ingest whose facts would back-date or contradict stored knowledge: ingest's
 * bounds check (src/ingest/knowledge-bounds.ts) and the store's append (src/store/append-batch.ts)
 * both raise it, so it lives below both.
 */
import { MmdsError } from '../lib/errors.ts';

/** An ingest would have back-dated or contradicted stored knowledge: nothing was written. */
export class RevisionRefusedError extends MmdsError {
  /** The first refusals in input order (not necessarily all of them). */
  readonly reasons: string[];
  /** How many candidates were refused in all. */
  readonly total: number;

  constructor(table: string, reasons: string[], total = reasons.length) {
    const more = total > 1 ? ` (and ${total - 1} more)` : '';
    super('revision_refused', `${table}: ${reasons[0]}${more}`);
    this.name = 'RevisionRefusedError';
    this.reasons = reasons;
    this.total = total;
  }
}
