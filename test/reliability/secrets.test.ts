import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_NOW, runMmds } from '../helpers/run-cli.ts';
import { startTestServer, type TestServer } from '../helpers/server-fixture.ts';
import { createSampleSnapshot, type SnapshotFixture } from '../helpers/snapshot-fixture.ts';
import { findContractViolations, headerRecord } from './helpers/contract-checks.ts';
import { issueTestKey, runKeysCommand } from './helpers/served-sample.ts';

/**
 * Secrets: keys are issued, rotated and revoked through the CLI, then presented to the server,
 * good and bad, on every kind of endpoint. No plaintext key may appear in the server's log, in
 * any file of the data directory, in `mmds keys list`, or in any response; and an unknown, a
 * forged (right id, wrong secret, also of a revoked key) and a malformed key all get the same
 * 401, byte for byte apart from request_id, on every endpoint. A revoked, an expired and a
 * rotated-out key presented with its right secret get the same 401 status and headers with a
 * message saying why (docs/keys.md): only the holder of the key learns it.
 */

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PEPPER = 'reliability-pepper-0123456789';
/** What a key with the right secret that no longer works is told. */
const HINTS: Record<string, RegExp> = {
  revoked: /^the API key was revoked; /,
  expired: /^the API key has expired; /,
  rotated: /^the API key was replaced by a rotation and its grace period is over; /,
};

/** A key of the right form with a valid checksum (so it passes the format check and reaches the lookup). */
function forgeKey(id: string, secret: string): string {
  const body = `mmds_${id}_${secret}`;
  let value = crc32(body);
  let checksum = '';
  for (let i = 0; i < 6; i++) {
    checksum = BASE62[value % 62] + checksum;
    value = Math.floor(value / 62);
  }
  return `${body}${checksum}`;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

describe('secrets never leak, and every bad key looks the same', () => {
  let sample: SnapshotFixture;
  let server: TestServer;
  let env: Record<string, string>;
  const plaintexts: string[] = [];
  const bodies: string[] = [];
  const bad: Record<string, string> = {};
  /** Keys presented with their right secret that no longer work: their 401 says why. */
  const proven: Record<string, string> = {};
  let good = '';
  let slug = '';

  beforeAll(async () => {
    sample = await createSampleSnapshot();
    env = { ...sample.env, MMDS_KEY_PEPPER: PEPPER };
    const all = 'cot:history,macro:history,observations:read';
    const issued = await issueTestKey(env, { scopes: all, rateLimit: 100_000 });
    good = issued.plaintext;
    const revoked = await issueTestKey(env, { scopes: all });
    await runKeysCommand(env, ['revoke', revoked.id]);
    const expired = await issueTestKey(env, {
      scopes: all,
      expires: '2020-06-01',
      now: () => new Date('2020-01-01T00:00:00Z'),
    });
    // Rotated a minute ago by the real clock (the fixtures' clock is ahead of it), no grace.
    const aMinuteAgo = () => new Date(Date.now() - 60_000);
    const rotated = await issueTestKey(env, { scopes: all, now: aMinuteAgo });
    const rotation = JSON.parse(
      await runKeysCommand(env, ['rotate', rotated.id, '--grace', '0'], aMinuteAgo),
    ) as {
      key: string;
    };
    plaintexts.push(good, revoked.plaintext, expired.plaintext, rotated.plaintext, rotation.key);
    const [, id, secret] = /^mmds_([a-z2-7]{12})_([0-9A-Za-z]{32})/.exec(good)!;
    const otherSecret = `${secret!.slice(1)}${secret![0] === 'A' ? 'B' : 'A'}`;
    Object.assign(proven, {
      revoked: revoked.plaintext,
      expired: expired.plaintext,
      rotated: rotated.plaintext,
    });
    Object.assign(bad, {
      unknown: forgeKey('abcdefghijkl', secret!),
      wrong_secret: forgeKey(id!, otherSecret),
      revoked_wrong_secret: forgeKey(revoked.id, otherSecret),
      malformed_checksum: `${good.slice(0, -1)}${good.endsWith('A') ? 'B' : 'A'}`,
      malformed_short: good.slice(0, 20),
      malformed_text: 'not-a-key',
    });
    server = await startTestServer({
      dataDir: sample.dataDir,
      distDir: sample.env.MMDS_DIST_DIR,
      keyPepper: PEPPER,
      anonymousLimit: 1_000,
    });
    const markets = await fetch(`${server.url}/api/v1/markets/cot`);
    slug = ((await markets.json()) as { data: Array<{ slug: string }> }).data[0]!.slug;
  });

  afterAll(async () => {
    await server?.close();
    sample?.remove();
  });

  async function get(target: string, key: string | null) {
    const response = await fetch(`${server.url}${target}`, {
      headers: key === null ? {} : { Authorization: `Bearer ${key}` },
    });
    const exchange = {
      method: 'GET',
      target,
      status: response.status,
      headers: headerRecord(response.headers),
      body: await response.text(),
    };
    bodies.push(exchange.body, JSON.stringify(exchange.headers));
    expect(findContractViolations(exchange)).toEqual([]);
    return exchange;
  }

  const targets = () => [
    '/api/v1/observations?series=ecb.USD',
    '/api/v1/macro/zz-unknown',
    `/api/v1/markets/cot/${slug}`,
    '/api/v1/fx/ecb',
    '/api/v1/status',
    '/no/such/page',
  ];

  it('gives every kind of bad key the same 401 on every endpoint, and the good key its answers', async () => {
    const seen = new Set<string>();
    const headersSeen = new Set<string>();
    for (const target of targets()) {
      expect((await get(target, good)).status, target).not.toBe(401);
      for (const [kind, key] of Object.entries(bad)) {
        const answer = await get(target, key);
        expect(answer.status, `${kind} on ${target}`).toBe(401);
        // What legitimately differs between two requests: their id, the time, the client's quota.
        const {
          'x-request-id': _id,
          date: _date,
          'x-ratelimit-remaining': _remaining,
          'x-ratelimit-reset': _reset,
          ratelimit: _ratelimit,
          ...headers
        } = answer.headers;
        seen.add(JSON.stringify([answer.body.replace(/"request_id":"[^"]+"/, '"request_id":""'), headers]));
        expect(JSON.parse(answer.body).error.message, kind).toBe('the API key is not valid');
        headersSeen.add(JSON.stringify(headers));
      }
      for (const [kind, key] of Object.entries(proven)) {
        const answer = await get(target, key);
        expect(answer.status, `${kind} on ${target}`).toBe(401);
        const { error } = JSON.parse(answer.body) as { error: { code: string; message: string } };
        expect(error.code).toBe('unauthorized');
        expect(error.message, kind).toMatch(HINTS[kind]!);
        const {
          'x-request-id': _id,
          date: _date,
          'x-ratelimit-remaining': _remaining,
          'x-ratelimit-reset': _reset,
          ratelimit: _ratelimit,
          'content-length': _length,
          ...headers
        } = answer.headers;
        const { 'content-length': _badLength, ...badHeaders } = JSON.parse([...headersSeen][0]!);
        expect(headers, kind).toEqual(badHeaders);
      }
    }
    expect([...seen]).toHaveLength(1);
    // Each kind really reached its own refusal path (the log says why; the response never does).
    const reasons = new Set(server.logs.filter((e) => e.event === 'auth_refused').map((e) => e.reason));
    expect([...reasons].sort()).toEqual([
      'expired',
      'malformed',
      'revoked',
      'rotated',
      'unknown',
      'wrong_secret',
    ]);
  });

  it('never writes a plaintext key to the log, the data directory, keys list or a response', async () => {
    // The responses of the test above, and a few more of the good key.
    for (const target of targets()) await get(target, good);
    expect(bodies.length).toBeGreaterThan(50);
    const list = await runMmds(['--json', 'keys', 'list'], env, () => FIXTURE_NOW);
    expect(list.code).toBe(0);
    const logs = JSON.stringify(server.logs);
    const files = listFiles(sample.dataDir).map((path) => ({ path, bytes: readFileSync(path) }));
    expect(files.some(({ path }) => path.includes(`${join('state', 'keys')}`))).toBe(true);
    for (const plaintext of plaintexts) {
      const secret = plaintext.slice('mmds_'.length + 13, -6);
      for (const needle of [plaintext, secret]) {
        expect(logs.includes(needle), 'server log').toBe(false);
        expect(list.stdout.includes(needle) || list.stderr.includes(needle), 'keys list').toBe(false);
        for (const { path, bytes } of files) expect(bytes.includes(needle), path).toBe(false);
        for (const body of bodies) expect(body.includes(needle), 'response').toBe(false);
      }
    }
    // The log names the key id of a refused well-formed key, never more of it.
    for (const entry of server.logs.filter((e) => e.event === 'auth_refused')) {
      expect(entry.key_id === null || /^[a-z2-7]{12}$/.test(String(entry.key_id))).toBe(true);
    }
  });
});
