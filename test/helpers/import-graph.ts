// The layers of src/ and the imports that break them, read by dependency-cruiser: the guard rail of
// issue 34 (test/unit/import-layers.test.ts). A folder may import its own layer and the layers below
// it, never one above; no import loop of files, type-only imports included (a loop always means a
// type or constant lives in too high a file).
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { cruise, type IViolation } from 'dependency-cruiser';
import ts from 'typescript';

/**
 * src/ folders bottom up (issue 34, "Layers, bottom up"), today's folders standing in for the ones
 * the issue names: fetch/ and ingest/ are sources/, update/ is pipeline/. site/ and pages/ sit under
 * build/ (the build drives Astro); keys/, rate-limit/ and hooks/ under server/, which uses them;
 * config/ gathers every feature's defaults, so it sits above them, under cli/ only.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['lib', 'version.ts'],
  ['model'],
  ['db'],
  ['calendar'],
  ['fetch', 'ingest'],
  ['store'],
  ['update'],
  ['query'],
  ['events'],
  ['contract'],
  ['api'],
  ['site', 'pages'],
  ['build'],
  ['mcp'],
  ['keys', 'rate-limit'],
  ['hooks'],
  ['server'],
  ['config'],
  ['cli'],
];

/** One import the rules refuse: `layer` (against the order) or `cycle` (part of a loop). */
export interface ImportViolation {
  kind: 'layer' | 'cycle';
  /** `kind from -> to`, the allow-list's spelling. */
  key: string;
  /** For a cycle, the loop the import closes. */
  detail: string;
}

const folderPattern = (names: readonly string[]) =>
  `^src/(${names.map((name) => name.replace(/[.-]/g, (c) => `\\${c}`)).join('|')})($|/)`;

/** The folders of src/ that LAYERS does not place (each must be placed). */
export function unplacedFolders(folders: readonly string[]): string[] {
  const placed = new Set(LAYERS.flat());
  return folders.filter((folder) => !placed.has(folder));
}

/** Reads the imports of src/ and returns every one that breaks the layer order or closes a loop. */
export async function findImportViolations(root: string): Promise<ImportViolation[]> {
  const forbidden = [
    { name: 'cycle', severity: 'error' as const, from: { path: '^src/' }, to: { circular: true } },
    ...LAYERS.slice(0, -1).map((layer, index) => ({
      name: 'layer',
      severity: 'error' as const,
      from: { path: folderPattern(layer) },
      to: { path: folderPattern(LAYERS.slice(index + 1).flat()) },
    })),
  ];
  const result = await cruise(
    ['src'],
    {
      ruleSet: { forbidden },
      // Type-only imports count: they tie the files as much as a value does.
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      includeOnly: '^src/',
      validate: true,
      baseDir: root,
    },
    undefined,
    { tsConfig: { fileName: join(root, 'tsconfig.json') } },
  );
  if (typeof result.output === 'string') throw new Error('dependency-cruiser returned text, not a result');
  return [...result.output.summary.violations.map(toViolation), ...astroLayerViolations(root)];
}

function toViolation(violation: IViolation): ImportViolation {
  const kind = violation.rule.name === 'cycle' ? 'cycle' : 'layer';
  const detail = kind === 'cycle' ? (violation.cycle ?? []).map((step) => step.name).join(' -> ') : '';
  return { kind, key: `${kind} ${violation.from} -> ${violation.to}`, detail };
}

/** The layer of a path under src/ (`src/query/history.ts`): its index in LAYERS. */
export function layerOf(path: string): number {
  const folder = path.split('/')[1] ?? '';
  const index = LAYERS.findIndex((layer) => layer.includes(folder));
  if (index < 0)
    throw new Error(`${path}: its folder is not placed in LAYERS (test/helpers/import-graph.ts)`);
  return index;
}

/**
 * dependency-cruiser does not read .astro files: their front matter's relative imports, read with
 * the TypeScript compiler, go through the same layer rule (nothing .ts imports them, so no loop
 * runs through them).
 */
function astroLayerViolations(root: string): ImportViolation[] {
  const violations: ImportViolation[] = [];
  for (const file of listFiles(join(root, 'src'), '.astro')) {
    const from = relative(root, file).split('\\').join('/');
    const frontMatter = /^---\n([\s\S]*?)\n---/.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
    for (const { fileName } of ts.preProcessFile(frontMatter, true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const to = posix.normalize(posix.join(posix.dirname(from), fileName));
      if (layerOf(to) > layerOf(from))
        violations.push({ kind: 'layer', key: `layer ${from} -> ${to}`, detail: '' });
    }
  }
  return violations;
}

function listFiles(directory: string, extension: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(extension))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
