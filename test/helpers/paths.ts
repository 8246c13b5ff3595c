import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The publishers' real files, beside the checkout (never copied into the project). */
export const SHARED_DATA = fileURLToPath(new URL('../../../shared/data/', import.meta.url));

/** The data `npm start` ships: trimmed extracts of the real publishers' files (data/sample/README.md). */
export const SAMPLE_DATA = fileURLToPath(new URL('../../data/sample/', import.meta.url));

/** Test-only fixture: a fictitious licensed vendor over real figures (its README.md says why). */
export const LICENSED_FIXTURE = fileURLToPath(new URL('../fixtures/licensed/', import.meta.url));
