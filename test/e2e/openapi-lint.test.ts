import { createConfig, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { createOpenApiDocument, OPENAPI_PATH } from '../../src/contract/openapi.ts';

/** One line per problem: severity, rule, message and where, for a readable failure. */
function describeProblems(problems: readonly NormalizedProblem[]): string[] {
  return problems.map(
    (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer ?? '').join(', ')}`,
  );
}

/** Lints a document with Redocly's `recommended` ruleset, no configuration file involved. */
async function lint(document: Record<string, unknown>): Promise<NormalizedProblem[]> {
  const config = await createConfig({ extends: ['recommended'] });
  return lintFromString({
    source: JSON.stringify(document, null, 2),
    absoluteRef: OPENAPI_PATH,
    config,
  });
}

describe('the OpenAPI document under Redocly lint', () => {
  it('passes the recommended ruleset with no errors and no warnings', async () => {
    const problems = await lint(createOpenApiDocument());
    expect(describeProblems(problems)).toEqual([]);
  });

  it('reports what the issue reported before the fix (the lint is really run)', async () => {
    // The document as it was: no servers, no licence, tags without descriptions, a 405 response
    // component no operation uses.
    const before = createOpenApiDocument();
    const info = { ...(before.info as Record<string, unknown>) };
    delete info.license;
    const components = before.components as Record<string, Record<string, unknown>>;
    const old = {
      ...before,
      info,
      servers: undefined,
      tags: (before.tags as { name: string }[]).map(({ name }) => ({ name })),
      components: {
        ...components,
        responses: { ...components.responses, '405': { description: 'method_not_allowed' } },
      },
    };
    const rules = (await lint(old)).map((p) => `${p.severity} ${p.ruleId}`);
    expect(rules).toContain('error no-empty-servers');
    expect(rules).toContain('warn info-license');
    expect(rules).toContain('warn tag-description');
    expect(rules).toContain('warn no-unused-components');
  });
});
