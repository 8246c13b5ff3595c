import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The publishers' real files, beside the checkout (never copied into the project). */
export const SHARED_DATA = fileURLToPath(new URL('../../../shared/data/', import.meta.url));

/** The project's own sample data. */
export const SAMPLE_DATA = fileURLToPath(new URL('../../data/sample/', import.meta.url));
