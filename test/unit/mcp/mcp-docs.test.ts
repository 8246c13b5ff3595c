import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentedPath, ROUTES } from '../../../src/contract/routes.ts';
import { MCP_TOOLS } from '../../../src/mcp/tools.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';

const DOC = readFileSync(join(REPO_ROOT, 'docs/mcp.md'), 'utf8');

/** The text of a `## heading` section of docs/mcp.md, up to the next one. */
function section(heading: string): string {
  const start = DOC.indexOf(`\n## ${heading}\n`);
  expect(start, `docs/mcp.md has a section "## ${heading}"`).toBeGreaterThan(-1);
  const end = DOC.indexOf('\n## ', start + 1);
  return DOC.slice(start, end === -1 ? undefined : end);
}

describe('docs/mcp.md names the tools there are, and the endpoints without one', () => {
  it('lists every tool with its REST endpoint in the tools table, and no other', () => {
    const rows = [...section('Tools').matchAll(/^\| `([a-z_]+)` \| `GET ([^`]+)` \|/gm)].map(
      ([, name, path]) => [name, path],
    );
    expect(rows).toEqual(MCP_TOOLS.map((tool) => [tool.name, documentedPath(tool.route)]));
  });

  it('names every endpoint that has no tool under "REST only", and no endpoint that has one', () => {
    const restOnly = section('REST only');
    const named = new Set([...restOnly.matchAll(/`GET ([^`]+)`/g)].map(([, path]) => path));
    const tools = new Set(MCP_TOOLS.map((tool) => tool.route.id));
    const without = ROUTES.filter((route) => !tools.has(route.id)).map(documentedPath);
    expect(without.length).toBeGreaterThan(0);
    expect([...named].sort()).toEqual([...without].sort());
    expect(DOC).not.toContain('## Not yet');
  });
});
