import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStateStorage } from '../../src/keys/create-storage.ts';
import { createKeyStore } from '../../src/keys/key-store.ts';
import { FIXTURE_NOW, runMmds } from '../helpers/run-cli.ts';
import { createTempDir } from '../helpers/temp-dir.ts';

const KEY = /^mmds_([a-z2-7]{12})_[0-9A-Za-z]{38}$/;
const PEPPER = 'integration-pepper';

let temp: ReturnType<typeof createTempDir>;
let env: Record<string, string>;

beforeAll(() => {
  temp = createTempDir('mmds-keys-');
  env = { MMDS_DATA_DIR: temp.dir, MMDS_STORAGE: 'file', MMDS_KEY_PEPPER: PEPPER };
});

afterAll(() => temp.remove());

/** An instant `seconds` after the fixture clock. */
function at(seconds: number): () => Date {
  return () => new Date(FIXTURE_NOW.getTime() + seconds * 1000);
}

/** Every file under the state directory, with its content. */
function readStateFiles(): { path: string; content: string }[] {
  const stateDir = join(temp.dir, 'state');
  return readdirSync(stateDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const path = join(entry.parentPath, entry.name);
      return { path, content: readFileSync(path, 'utf8') };
    });
}

/** Checks a key against the file state the way the server will. */
async function authenticate(plaintext: string, now: Date): Promise<boolean> {
  const storage = createStateStorage('file', temp.dir);
  try {
    return (await createKeyStore(storage).authenticate(plaintext, now, PEPPER)).ok;
  } finally {
    await storage.dispose();
  }
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

async function issue(args: string[] = []): Promise<{ plaintext: string; id: string }> {
  const run = await runMmds(
    ['keys', 'issue', '--org', 'Example Bank', '--scopes', 'cot:history', ...args],
    env,
  );
  expect(run.code, run.stderr).toBe(0);
  const plaintext = run.stdout.trim();
  return { plaintext, id: KEY.exec(plaintext)![1]! };
}

describe('mmds keys issue', () => {
  it('prints the key once on stdout, warns on stderr, and stores only a hash', async () => {
    const run = await runMmds(
      [
        'keys',
        'issue',
        '--org',
        'Example Bank',
        '--scopes',
        'cot:history,macro:history',
        '--rate-limit',
        '600',
      ],
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    const plaintext = lines[0]!;
    expect(plaintext).toMatch(KEY);
    expect(occurrences(run.stdout + run.stderr, plaintext)).toBe(1);
    expect(run.stderr).toMatch(/shown only now/);
    expect(run.stderr).toContain(KEY.exec(plaintext)![1]!);
    expect(await authenticate(plaintext, FIXTURE_NOW)).toBe(true);

    const files = readStateFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect(file.content).not.toContain(plaintext);
      expect(file.content).not.toContain(plaintext.slice(18, 50));
      expect(file.content).toMatch(/"hash":"hmac-sha256:[0-9a-f]{64}"/);
    }
  });

  it('prints the key and the record without its hash under --json', async () => {
    const run = await runMmds(
      [
        'keys',
        'issue',
        '--org',
        'Acme',
        '--scopes',
        'observations:read',
        '--expires',
        '2027-06-30',
        '--name',
        'ops',
        '--json',
      ],
      env,
    );
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.key).toMatch(KEY);
    expect(result).toMatchObject({
      id: KEY.exec(result.key)![1],
      org: 'Acme',
      name: 'ops',
      scopes: ['observations:read'],
      rate_limit: 60,
      created_at: '2026-11-23T12:00:00Z',
      expires_at: '2027-06-30T00:00:00Z',
      revoked_at: null,
      replaces: null,
    });
    expect(result).not.toHaveProperty('hash');
    // The document is the whole answer: the human summary and warning are for the terminal only.
    expect(run.stderr).toBe('');
  });

  it.each([
    [['--org', 'A', '--scopes', 'admin'], /unknown scope "admin"/],
    [['--org', 'A', '--scopes', 'cot:history', '--rate-limit', '0'], /rate limit/],
    [['--org', 'A', '--scopes', 'cot:history', '--rate-limit', '100001'], /rate limit/],
    [['--org', 'A', '--scopes', 'cot:history', '--rate-limit', 'ten'], /--rate-limit/],
    [['--org', 'A', '--scopes', 'cot:history', '--expires', '2026-11-23'], /not in the future/],
    [['--org', 'A', '--scopes', 'cot:history', '--expires', '2027-02-30'], /--expires/],
    [['--org', 'A', '--scopes', 'cot:history', '--expires', 'tomorrow'], /--expires/],
    [['--org', 'x'.repeat(101), '--scopes', 'cot:history'], /org must be at most 100/],
    [['--org', 'A\tB', '--scopes', 'cot:history'], /printable/],
    [['--org', 'A', '--scopes', 'cot:history', '--name', 'a\u0000b'], /name must contain only printable/],
  ])('refuses %j with exit code 2 and one line, storing nothing', async (args, message) => {
    const before = readStateFiles().length;
    const run = await runMmds(['keys', 'issue', ...args], env);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(run.stderr).toMatch(/^mmds: /);
    expect(run.stderr).toMatch(message);
    expect(readStateFiles()).toHaveLength(before);
  });

  it('refuses missing or unknown flags with exit code 2', async () => {
    for (const args of [
      ['--scopes', 'cot:history'],
      ['--org', 'A'],
      ['--org', 'A', '--scopes', 'cot:history', '--bogus'],
    ]) {
      const run = await runMmds(['keys', 'issue', ...args], env);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.split('\n')[0]).toMatch(/^error: (required option|unknown option)/);
    }
  });
});

describe('mmds keys list', () => {
  it('shows every key with its state and never a secret or hash', async () => {
    const { plaintext, id } = await issue(['--name', 'listed key']);
    const table = await runMmds(['keys', 'list'], env);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(
      /^ID\s+STATUS\s+ORG\s+NAME\s+SCOPES\s+PER MIN\s+CREATED\s+EXPIRES$/,
    );
    const row = table.stdout.split('\n').find((line) => line.startsWith(id));
    expect(row).toMatch(/active\s+Example Bank\s+listed key\s+cot:history\s+60\s+2026-11-23T12:00:00Z\s+-$/);
    expect(table.stdout).not.toContain(plaintext.slice(18, 50));
    expect(table.stdout).not.toContain('sha256');

    const json = await runMmds(['keys', 'list', '--json'], env);
    const records = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(records.find((record) => record.id === id)).toMatchObject({
      status: 'active',
      name: 'listed key',
    });
    for (const record of records) expect(record).not.toHaveProperty('hash');
    expect(json.stdout).not.toContain(plaintext.slice(18, 50));
  });
});

describe('mmds keys rotate and revoke', () => {
  it('rotates with a grace period: the new key is printed once, the old one works until the deadline', async () => {
    const old = await issue(['--rate-limit', '300']);
    const run = await runMmds(['keys', 'rotate', old.id, '--grace', '30m'], env, at(60));
    expect(run.code, run.stderr).toBe(0);
    const plaintext = run.stdout.trim();
    expect(plaintext).toMatch(KEY);
    expect(occurrences(run.stdout + run.stderr, plaintext)).toBe(1);
    expect(run.stderr).toContain('keeps working until 2026-11-23T12:31:00Z');

    expect(await authenticate(old.plaintext, at(60 + 1799)())).toBe(true);
    expect(await authenticate(old.plaintext, at(60 + 1800)())).toBe(false);
    expect(await authenticate(plaintext, at(60 + 1800)())).toBe(true);

    const list = JSON.parse((await runMmds(['keys', 'list', '--json'], env, at(60))).stdout) as Record<
      string,
      unknown
    >[];
    const newId = KEY.exec(plaintext)![1];
    expect(list.find((r) => r.id === old.id)).toMatchObject({ status: 'grace', replaced_by: newId });
    expect(list.find((r) => r.id === newId)).toMatchObject({
      replaces: old.id,
      rate_limit: 300,
      org: 'Example Bank',
    });

    const again = await runMmds(['keys', 'rotate', old.id], env, at(60));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already rotated/);
    for (const file of readStateFiles()) expect(file.content).not.toContain(plaintext);
  });

  it('rotates without grace: the old key is refused at once', async () => {
    const old = await issue();
    const run = await runMmds(['keys', 'rotate', old.id], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('refused from now on');
    expect(await authenticate(old.plaintext, FIXTURE_NOW)).toBe(false);
    expect(await authenticate(run.stdout.trim(), FIXTURE_NOW)).toBe(true);
  });

  it('revokes a key from the next request on, idempotently', async () => {
    const key = await issue();
    expect(await authenticate(key.plaintext, FIXTURE_NOW)).toBe(true);
    const run = await runMmds(['keys', 'revoke', key.id], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`revoked key ${key.id}`);
    expect(await authenticate(key.plaintext, FIXTURE_NOW)).toBe(false);
    const again = await runMmds(['keys', 'revoke', key.id, '--json'], env, at(60));
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      id: key.id,
      changed: false,
      revoked_at: '2026-11-23T12:00:00Z',
    });
  });

  it.each([
    [['rotate', 'aaaaaaaaaaaa'], /no key with id aaaaaaaaaaaa/],
    [['revoke', 'aaaaaaaaaaaa'], /no key with id aaaaaaaaaaaa/],
    [['revoke', '../../etc/passwd'], /not a key id/],
    [['rotate', 'aaaaaaaaaaaa', '--grace', '30'], /--grace/],
    [['rotate', 'aaaaaaaaaaaa', '--grace', '91d'], /--grace/],
    [['rotate', 'aaaaaaaaaaaa', '--grace', '-1h'], /--grace/],
  ])('refuses %j with exit code 2 and one line', async (args, message) => {
    const run = await runMmds(['keys', ...args], env);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(run.stderr).toMatch(message);
  });

  it('does not echo a whole key passed where an id belongs', async () => {
    const key = await issue();
    const run = await runMmds(['keys', 'revoke', key.plaintext], env);
    expect(run.code).toBe(2);
    expect(run.stderr).not.toContain(key.plaintext.slice(18, 50));
    expect(await authenticate(key.plaintext, FIXTURE_NOW)).toBe(true);
  });
});
