import { existsSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The publishers' real files, beside the checkout (never copied into the project). MMDS_SHARED_DATA
 * names another place (tests only; point it at a missing directory to see what runs without them).
 * The test files that read them are skipped when it is absent (test/helpers/test-prerequisites.ts).
 */
export const SHARED_DATA = process.env.MMDS_SHARED_DATA
  ? `${resolve(process.env.MMDS_SHARED_DATA)}${sep}`
  : fileURLToPath(new URL('../../../shared/data/', import.meta.url));

/** Whether the publishers' real files are there. */
export const HAVE_SHARED_DATA = existsSync(SHARED_DATA);

/** The data `npm start` ships: trimmed extracts of the real publishers' files (data/sample/README.md). */
export const SAMPLE_DATA = fileURLToPath(new URL('../../data/sample/', import.meta.url));

/** Test-only fixture: a fictitious licensed vendor over real figures (its README.md says why). */
export const LICENSED_FIXTURE = fileURLToPath(new URL('../fixtures/licensed/', import.meta.url));

/** Debian's chromium, which the browser tests drive through playwright-core (.ci/run installs it). */
export const CHROMIUM_PATH = '/usr/bin/chromium';
