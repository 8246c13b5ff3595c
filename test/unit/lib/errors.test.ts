import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../../src/contract/errors.ts';
import {
  CLI_OUTCOMES,
  ERROR_RULES,
  EXIT,
  EXIT_ERROR_CODES,
  isApiErrorCode,
  MmdsError,
  RPC,
  ruleOf,
} from '../../../src/lib/errors.ts';
import { ObjectStoreError } from '../../../src/store/object-store/object-store.ts';
import { REPO_ROOT } from '../../helpers/paths.ts';

/**
 * The one code table (src/lib/errors.ts, issue 34): every code has an exit code, a --json code and
 * a JSON-RPC code; the API's codes keep CONTRACT section 1's statuses; docs/errors.md is the same
 * table; and every error class of src/ is an MmdsError (one error type).
 */

const CONTRACT = join(REPO_ROOT, '../shared/CONTRACT.md');

/** The rows of the first Markdown table after `heading` whose header row starts with `first`. */
function markdownTable(text: string, first: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`| ${first} |`));
  if (start < 0) throw new Error(`no table starting "| ${first} |"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim().replaceAll('`', '')),
    );
  }
  return rows;
}

describe('the error code table', () => {
  it('gives every code an exit code with its --json code, and a JSON-RPC error code', () => {
    const failing = Object.values(EXIT).filter((exit) => exit !== EXIT.ok && exit !== EXIT.nothingNew);
    for (const [code, rule] of Object.entries(ERROR_RULES)) {
      expect(failing, code).toContain(rule.exit);
      expect(CLI_OUTCOMES[rule.json], code).toBe(rule.exit);
      expect(EXIT_ERROR_CODES[rule.exit], code).toBe(rule.json);
      // JSON-RPC 2.0 reserves -32768 to -32000 for errors; -32002 is MCP's unknown resource.
      expect(Number.isInteger(rule.rpc) && rule.rpc >= -32768 && rule.rpc <= -32000, code).toBe(true);
      if (rule.status !== null) expect(rule.status >= 400 && rule.status < 600, code).toBe(true);
      // A code outside the envelope's is answered over HTTP as one of the envelope's, with its status.
      if (rule.api !== null) expect(rule.status, code).toBe(ERROR_STATUS[rule.api]);
      expect(rule.api === null || isApiErrorCode(rule.api), code).toBe(true);
    }
    // Each --json code stands for one exit code, and every failing exit code has one.
    expect(Object.keys(EXIT_ERROR_CODES).map(Number).sort()).toEqual([...failing].sort());
  });

  it("keeps the API's codes and statuses of CONTRACT section 1", () => {
    if (!existsSync(CONTRACT)) return void console.log(`skipped: ${CONTRACT} is absent`);
    const section = readFileSync(CONTRACT, 'utf8').split('\n## 2.')[0]!;
    const rows = markdownTable(section, 'condition');
    expect(rows.length).toBeGreaterThan(5);
    for (const [, status, code] of rows) {
      expect(isApiErrorCode(code!), code).toBe(true);
      expect(ERROR_RULES[code as keyof typeof ERROR_RULES].status, code).toBe(Number(status));
      expect(ERROR_RULES[code as keyof typeof ERROR_RULES].api, code).toBe(code);
    }
  });

  it('is the table of docs/errors.md, row for row', () => {
    const rows = markdownTable(readFileSync(join(REPO_ROOT, 'docs/errors.md'), 'utf8'), 'code');
    const documented = rows.map(([code, status, api, exit, json, rpc, retryable]) => [
      code,
      { status, api, exit, json, rpc, retryable },
    ]);
    const expected = Object.entries(ERROR_RULES).map(([code, rule]) => [
      code,
      {
        status: rule.status === null ? '—' : String(rule.status),
        api: rule.api ?? '—',
        exit: String(rule.exit),
        json: rule.json,
        rpc: String(rule.rpc),
        retryable: rule.retryable ? 'yes' : 'no',
      },
    ]);
    expect(documented).toEqual(expected);
  });

  it("maps an error's own detail to its code (a bucket's missing credentials are configuration)", () => {
    const credentials = new ObjectStoreError('no S3 credentials found', { kind: 'credentials' });
    expect(credentials).toBeInstanceOf(MmdsError);
    expect(ruleOf(credentials)?.exit).toBe(EXIT.config);
    expect(ruleOf(new ObjectStoreError('the bucket does not answer', { kind: 'unreachable' }))?.exit).toBe(
      EXIT.unavailable,
    );
    expect(ruleOf(new Error('plain'))).toBeNull();
    expect(RPC.resourceNotFound).toBe(ERROR_RULES.not_found.rpc);
  });

  it('is the one error type: no class of src/ extends Error itself', () => {
    const found: string[] = [];
    const src = join(REPO_ROOT, 'src');
    for (const entry of readdirSync(src, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const path = join(entry.parentPath, entry.name);
      for (const match of readFileSync(path, 'utf8').matchAll(/class (\w+) extends Error\b/g))
        found.push(`${relative(REPO_ROOT, path)}: ${match[1]}`);
    }
    // The base itself; a documented exit status, which is no failure (its code is the exit code);
    // and a worker's failure, which carries the worker's own error (errno code and all) as is.
    expect(found.sort()).toEqual([
      'src/cli/reported-failure.ts: ExitStatus',
      'src/lib/errors.ts: MmdsError',
      'src/server/workers/start-workers.ts: WorkerStartError',
    ]);
  });
});
