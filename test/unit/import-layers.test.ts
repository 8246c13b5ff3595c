import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALLOWED_IMPORT_VIOLATIONS } from '../helpers/import-allow-list.ts';
import { findImportViolations, LAYERS, layerOf, unplacedFolders } from '../helpers/import-graph.ts';
import { REPO_ROOT } from '../helpers/paths.ts';

/**
 * The guard rail of issue 34: imports in src/ point down the layers of test/helpers/import-graph.ts
 * and never close a loop, apart from today's exceptions in test/helpers/import-allow-list.ts, which
 * may only shrink.
 */
describe('the imports of src/', async () => {
  const violations = await findImportViolations(REPO_ROOT);
  const found = new Set(violations.map((violation) => violation.key));
  const allowed = new Set(ALLOWED_IMPORT_VIOLATIONS);

  it('every folder of src/ has a layer', () => {
    const entries = readdirSync(join(REPO_ROOT, 'src'), { withFileTypes: true });
    const names = entries.filter((entry) => entry.isDirectory() || entry.name.endsWith('.ts'));
    expect(unplacedFolders(names.map((entry) => entry.name))).toEqual([]);
    expect(new Set(LAYERS.flat()).size).toBe(LAYERS.flat().length);
  });

  it('the layer rule reads a path as its folder', () => {
    expect(layerOf('src/lib/edit-distance.ts')).toBeLessThan(layerOf('src/store/publish.ts'));
    expect(layerOf('src/store/publish.ts')).toBeLessThan(layerOf('src/query/history.ts'));
    expect(layerOf('src/fetch/download.ts')).toBe(layerOf('src/ingest/ecb.ts'));
    expect(() => layerOf('src/nowhere/file.ts')).toThrow(/not placed/);
  });

  it('no import against the layer order and no import loop beyond the allow-list', () => {
    const fresh = violations
      .filter((violation) => !allowed.has(violation.key))
      .map((violation) =>
        violation.detail ? `${violation.key} (loop: ${violation.detail})` : violation.key,
      );
    expect(
      fresh,
      'a type or constant that two layers share belongs in the lower one; an import loop means one lives in too high a file',
    ).toEqual([]);
  });

  it('the allow-list holds only imports that still break the rules', () => {
    const stale = ALLOWED_IMPORT_VIOLATIONS.filter((key) => !found.has(key));
    expect(stale, 'fixed: delete these from test/helpers/import-allow-list.ts').toEqual([]);
    expect(new Set(ALLOWED_IMPORT_VIOLATIONS).size).toBe(ALLOWED_IMPORT_VIOLATIONS.length);
  });
});
