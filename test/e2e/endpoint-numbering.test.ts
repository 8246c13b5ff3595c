import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_INDEX_PATH } from '../../src/contract/openapi.ts';
import { documentedPath, ROUTES } from '../../src/contract/routes.ts';
import { MCP_PATH } from '../../src/contract/schemas/mcp.ts';
import { textOfHtml } from '../helpers/html-text.ts';
import { REPO_ROOT } from '../helpers/paths.ts';
import { sharedSampleBuild } from '../helpers/shared-sample-build.ts';

// One endpoint numbering everywhere a reader meets it (issue 23): the route table's `number` is
// the truth; the README's table, the numbered headings and mentions of docs/, the API reference
// page as built, and OpenAPI's `x-endpoint-number` must all say the same. Reads files only: the
// shared sample build's dist/ (no server, no browser).

// biome-ignore lint/suspicious/noExplicitAny: a walk over the OpenAPI document whose shape the assertions check
type Json = Record<string, any>;

const NUMBERS = [...new Set(ROUTES.map((route) => route.number))].sort((a, b) => a - b);
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** Every Markdown file under docs/, relative to the repository root. */
function docsFiles(dir = join(REPO_ROOT, 'docs'), out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) docsFiles(path, out);
    else if (name.endsWith('.md')) out.push(relative(REPO_ROOT, path));
  }
  return out;
}

/** Text of an HTML fragment, its white space collapsed. */
function textOf(html: string): string {
  return textOfHtml(html).replace(/\s+/g, ' ').trim();
}

describe('one endpoint numbering: README, docs/, the API reference page and OpenAPI agree with the route table', () => {
  let openapi: Json;
  let referenceHtml: string;

  /**
   * The endpoint number of a path as a reader writes it (`/series/{slug}.csv`,
   * `/bulk/{snapshot}/{dataset}.parquet`, with or without `/api/v1` and a query): the
   * `x-endpoint-number` of the OpenAPI path it matches, the most specific one (most literal
   * characters) when several match. null when no path of the document matches.
   */
  function numberOf(written: string): number | null {
    const bare = written.replace(/[?#].*$/, '');
    const path = bare.startsWith('/api/v1') ? bare : `/api/v1${bare}`;
    let best: { literal: number; number: number } | null = null;
    for (const [template, item] of Object.entries(openapi.paths as Json)) {
      const parts = template.split(/\{[^}]+\}/);
      const pattern = new RegExp(
        `^${parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`,
      );
      if (!pattern.test(path)) continue;
      const literal = parts.join('').length;
      const number = (item as Json).get?.['x-endpoint-number'];
      if (typeof number === 'number' && (best === null || literal > best.literal)) best = { literal, number };
    }
    return best?.number ?? null;
  }

  beforeAll(async () => {
    const { distDir } = await sharedSampleBuild();
    openapi = JSON.parse(readFileSync(join(distDir, 'api/v1/openapi.json'), 'utf8')) as Json;
    referenceHtml = readFileSync(join(distDir, 'docs/api/index.html'), 'utf8');
  }, 600_000);

  it("OpenAPI: every operation but the endpoint list and /mcp has x-endpoint-number, its route's number (CSV forms too)", () => {
    const numbered: string[] = [];
    for (const [path, item] of Object.entries(openapi.paths as Json)) {
      for (const method of METHODS) {
        const operation = (item as Json)[method];
        if (!operation) continue;
        expect({ path, old: operation['x-spec-endpoint'] }).toEqual({ path, old: undefined });
        // The endpoint list and the MCP endpoint are no numbered endpoint of the route table.
        if (path === API_INDEX_PATH || path === MCP_PATH) {
          expect(operation['x-endpoint-number']).toBeUndefined();
          continue;
        }
        expect({ path, number: NUMBERS.includes(operation['x-endpoint-number']) }).toEqual({
          path,
          number: true,
        });
        numbered.push(path);
      }
    }
    for (const route of ROUTES) {
      const path = documentedPath(route);
      expect({ path, number: openapi.paths[path].get['x-endpoint-number'] }).toEqual({
        path,
        number: route.number,
      });
      if (route.query.includes('format'))
        expect({ path, csv: openapi.paths[`${path}.csv`].get['x-endpoint-number'] }).toEqual({
          path,
          csv: route.number,
        });
    }
    expect(numbered.length).toBeGreaterThan(ROUTES.length);
  });

  it('README: each row of the endpoint table has the numbers of its paths, every endpoint is in one row, counts are right', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const rows = readme.split('\n').filter((line) => /^\| *\d+(, *\d+)* *\|/.test(line));
    const seen: number[] = [];
    for (const row of rows) {
      const [numbers, paths] = row.split(/(?<!\\)\|/).slice(1, 3) as [string, string];
      const declared = numbers.split(',').map((n) => Number(n.trim()));
      const written = [...paths.matchAll(/`(\/[^`]*)`/g)].map((m) => m[1]!);
      const found = written.map((path) => ({ path, number: numberOf(path) }));
      // Every path names an endpoint, and the row's numbers are exactly those of its paths.
      for (const entry of found)
        expect({ row: row.slice(0, 60), ...entry }).not.toMatchObject({ number: null });
      expect({
        row: row.slice(0, 60),
        numbers: [...new Set(found.map((f) => f.number))].sort((a, b) => a! - b!),
      }).toEqual({
        row: row.slice(0, 60),
        numbers: [...declared].sort((a, b) => a - b),
      });
      seen.push(...declared);
    }
    expect(seen.sort((a, b) => a - b)).toEqual(NUMBERS);
    // "the 23 endpoints": any count of endpoints the README states is the real one.
    for (const claim of readme.matchAll(/\b(\d+) endpoints\b/g))
      expect({ claim: claim[0], count: Number(claim[1]) }).toEqual({
        claim: claim[0],
        count: NUMBERS.length,
      });
  });

  it('docs/: numbered headings name their endpoint, a title lists the numbers of its headings, mentions name real endpoints', () => {
    let headings = 0;
    for (const file of docsFiles()) {
      const text = readFileSync(join(REPO_ROOT, file), 'utf8');
      const inFile: number[] = [];
      // `## 8. \`GET /api/v1/observations?series=<key>\``
      for (const m of text.matchAll(/^#{2,4} (\d+)\. `GET ([^` ]+)/gm)) {
        expect({ file, heading: m[0], number: numberOf(m[2]!) }).toEqual({
          file,
          heading: m[0],
          number: Number(m[1]),
        });
        inFile.push(Number(m[1]));
        headings += 1;
      }
      // `# Catalog and reference endpoints (6, 7, 9, 10, 12, 13, 14, 15)`
      const title = /^# .*\(([^)]*\d[^)]*)\)\s*$/m.exec(text);
      if (title && inFile.length > 0) {
        const listed = [...title[1]!.matchAll(/\d+/g)].map((m) => Number(m[0])).sort((a, b) => a - b);
        expect({ file, listed }).toEqual({ file, listed: [...inFile].sort((a, b) => a - b) });
      }
      // "endpoint 3", "endpoints 5 and 8": numbers of the table.
      for (const m of text.matchAll(/\b[Ee]ndpoints? (\d+(?:(?:, | and | or )\d+)*)\b/g))
        for (const n of m[1]!.matchAll(/\d+/g))
          expect({ file, mention: m[0], known: NUMBERS.includes(Number(n[0])) }).toEqual({
            file,
            mention: m[0],
            known: true,
          });
      // "`/fx/ecb` (endpoint 11", "`GET /api/v1/observations/aligned?...` (scope ..., endpoint 23)".
      for (const m of text.matchAll(/`(?:GET )?(\/[^`\s]+)[^`]*` \([^()]*?\bendpoint (\d+)\b/g))
        expect({ file, mention: m[0], number: numberOf(m[1]!) }).toEqual({
          file,
          mention: m[0],
          number: Number(m[2]),
        });
    }
    expect(headings).toBeGreaterThan(10);
  });

  it('the API reference page as built: each section and list entry shows its number, in order, once per route', () => {
    const sections = [
      ...referenceHtml.matchAll(/<section class="endpoint" id="([^"]+)"[^>]*>\s*<h2[^>]*>([\s\S]*?)<\/h2>/g),
    ];
    const shown = sections.map((m) => {
      const heading = /^(\d+)\. GET (\S+)$/.exec(textOf(m[2]!));
      return { id: m[1]!, number: Number(heading?.[1]), path: heading?.[2] ?? textOf(m[2]!) };
    });
    expect(shown.map((s) => s.id).sort()).toEqual(ROUTES.map((r) => r.id).sort());
    for (const section of shown) {
      const route = ROUTES.find((r) => r.id === section.id)!;
      expect(section).toEqual({
        id: route.id,
        number: route.number,
        path: documentedPath(route),
      });
      expect({ path: section.path, number: numberOf(section.path) }).toEqual({
        path: section.path,
        number: route.number,
      });
    }
    const order = shown.map((s) => s.number);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // The list of endpoints at the top: "N. /api/v1/...: summary", linking to its section.
    const nav = /<nav aria-label="Endpoints">([\s\S]*?)<\/nav>/.exec(referenceHtml)![1]!;
    const entries = [...nav.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => {
      const entry = /^(\d+)\. (\S+):/.exec(textOf(m[1]!));
      return { number: Number(entry?.[1]), path: entry?.[2], href: /href="#([^"]+)"/.exec(m[1]!)?.[1] };
    });
    expect(entries).toEqual(shown.map((s) => ({ number: s.number, path: s.path, href: s.id })));
  });
});
