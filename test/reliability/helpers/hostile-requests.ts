import fc from 'fast-check';
import { expect } from 'vitest';
import { PARAMS } from '../../../src/contract/params.ts';
import { ROUTES } from '../../../src/contract/routes.ts';
import { LICENSED_SERIES_KEY } from '../../helpers/snapshot-fixture.ts';
import { type Exchange, findContractViolations, headerRecord } from './contract-checks.ts';
import type { ServedSample } from './served-sample.ts';

/** What the generator starts from: the sample's public requests and built files. */
export type HostileTargets = Pick<ServedSample, 'publicRequests' | 'builtFiles'>;

/** One generated request: everything fetch will send. */
export interface HostileRequest {
  method: string;
  /** Path as put in the URL (percent-encoded or not, as generated). */
  path: string;
  /** Query string without `?`, as generated (may hold malformed escapes). */
  query: string;
  headers: Record<string, string>;
  /** Which Authorization variant was picked, for the statistics. */
  authKind: string;
}

/** The keys the generator may present: a good one, and the kinds a server must refuse. */
export interface HostileKeys {
  /** Every scope, a high rate limit. */
  good: string;
  /** A valid key without observations:read or macro:history. */
  narrow: string;
  revoked: string;
  expired: string;
}

/** Requests sent and what came back, for the report. */
export interface HostileStats {
  requests: number;
  byStatus: Record<string, number>;
  byAuth: Record<string, number>;
}

/** Percent-encodes the UTF-8 bytes of a string (lone surrogates become U+FFFD), keeping unreserved characters. */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Segments that try to climb out of the static tree or confuse a decoder. */
export const TRAVERSAL_SEGMENTS = [
  '..',
  '%2e%2e',
  '%2E%2E',
  '.%2e',
  '%2e.',
  '%252e%252e',
  '%25252e%25252e',
  '..%2f..%2f..%2fetc%2fpasswd',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  '%2e%2e%5c%2e%2e%5cetc%5cpasswd',
  '..%5c..%5cwindows%5cwin.ini',
  '..%255c..%255c',
  '%c0%ae%c0%ae',
  '%c0%af',
  '..;',
  '....//',
  '%00',
  '%2500',
  '..%00',
  '%ff%fe',
  '%',
  '%zz',
  '%e0%a4%a',
  '%2f%2f',
  'etc/passwd',
  '..%2f..%2fdata%2fCURRENT',
  '..%2f..%2fdata%2fstate%2fkeys',
];

/** Values that are numbers in some reading and nonsense in another. */
const NUMBERISH = [
  '-1',
  '0',
  '-0',
  '00001',
  '1.5',
  '1e3',
  '1e309',
  '-1e309',
  '99999999999999999999999',
  '18446744073709551616',
  '9007199254740993',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '0b1',
  '1_000',
  '1,000',
  ' 10',
  '10 ',
  '\uff11\uff10',
  '\u0663',
  '10001',
  '10000',
];

/** Timestamps and periods just inside and outside what the parameters accept. */
const TIMEISH = [
  '2026-01-01T00:00:00Z',
  '2025-02-30T00:00:00Z',
  '2024-02-29T23:59:59Z',
  '2025-01-01T24:00:00Z',
  '2025-01-01T23:59:60Z',
  '9999-12-31T23:59:59Z',
  '0000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '2025-01-01T00:00:00+01:00',
  '2025-01-01 00:00:00Z',
  '2025-01-01T00:00:00.000Z',
  '2025-01-01',
  '2025-13',
  '2025-Q5',
  '2025-Q0',
  '2025-W01',
  '1970-01-01T00:00:00Z',
  '2024-01',
  '2024-Q1',
  '2024',
];

/** Odd Unicode: bidi overrides, zero-width and combining marks, case-mapping traps, emoji. */
const UNICODEISH = [
  '\u202eDSU',
  'US\u200b',
  '\ufeffUSD',
  'U\u0301SD',
  'usd',
  'USD\u0000',
  '\u0130',
  '\u0131',
  '\u00df',
  '\ufb03',
  '\ud83d\ude00',
  '\ud800',
  '\u{1f1fa}\u{1f1f8}',
  'e\u0301urope',
  '\uff35\uff33\uff24',
  '\r\nX-Injected: 1',
  '<script>alert(1)</script>',
  '{"p":"2024","r":1}',
  '__proto__',
];

/** A few SQL shapes; the injection suite has the full corpus. */
const SQLISH = [
  "' OR '1'='1",
  "'; DROP TABLE observations; --",
  'USD) UNION SELECT 1 --',
  "read_csv('/etc/passwd')",
  '1; PRAGMA version',
];

const VALID_VALUES: Record<string, string[]> = {
  country: ['US', 'DE', 'ZZ'],
  currency: ['USD', 'EUR', 'ZZZ', 'usd,gbp', 'USD,USD', 'USD,,GBP'],
  region: ['150', 'europe', 'northern-europe', '999', 'atlantis'],
  // The licensed test series (test/fixtures/licensed/): in the snapshot, never in public output.
  series: ['ecb.USD', 'bls.CUUR0000SA0', 'zz.UNKNOWN', LICENSED_SERIES_KEY],
  // 2025-08-01T12:30:00Z: the release of the July 2025 Employment Situation (the first PAYEMS vintage).
  as_of: ['2026-01-01T00:00:00Z', '2025-08-01T12:30:00Z', '2000-01-01T00:00:00Z', '2099-01-01T00:00:00Z'],
  from: ['2024', '2025-01', '2025-Q1', '2025-01-01'],
  to: ['2026', '2026-12', '2026-Q4', '2026-12-31'],
  observation_start: ['2024', '2025-06-01', '2025-02-30'],
  observation_end: ['2026-Q2', '2026-06-30', '2025-13'],
  base: ['EUR', 'usd', 'GBP', 'ZZZ', 'BGN'],
  date: ['2025-06-02', '2026-04-12', '1998-12-31', '2099-01-01', '2025-02-30'],
  limit: ['1', '2', '100', '10000'],
  cursor: [Buffer.from('{"p":"2025-01","r":1}').toString('base64url'), 'AAAA', 'eyJwIjoiIn0'],
  format: ['json', 'csv', 'CSV', 'xml'],
  report_type: ['legacy', 'tff', 'disaggregated', 'LEGACY', 'other'],
};

const printable = fc.stringMatching(/^[\x20-\x7e]{0,60}$/);
const longText = fc.integer({ min: 200, max: 3_000 }).map((n) => 'A'.repeat(n));

/** A text value: valid for some parameter, numeric nonsense, odd Unicode, SQL, random, or long. */
const valueArbitrary: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...Object.values(VALID_VALUES).flat()), weight: 4 },
  { arbitrary: fc.constantFrom(...NUMBERISH), weight: 2 },
  { arbitrary: fc.constantFrom(...TIMEISH), weight: 2 },
  { arbitrary: fc.constantFrom(...UNICODEISH), weight: 2 },
  { arbitrary: fc.constantFrom(...SQLISH), weight: 1 },
  { arbitrary: fc.constantFrom(...TRAVERSAL_SEGMENTS), weight: 1 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }), weight: 1 },
  { arbitrary: printable, weight: 2 },
  { arbitrary: longText, weight: 1 },
  { arbitrary: fc.constant(''), weight: 1 },
);

const PARAM_NAMES = Object.keys(PARAMS);
const nameArbitrary: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...PARAM_NAMES), weight: 6 },
  {
    arbitrary: fc.constantFrom(
      'key',
      'api_key',
      'token',
      'callback',
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'limit[]',
      'as_of[0]',
      'Currency',
      'LIMIT',
      '',
    ),
    weight: 2,
  },
  { arbitrary: valueArbitrary, weight: 1 },
);

/** How a name or value is written into the query: encoded, raw, double-encoded or broken. */
const encodingArbitrary = fc.constantFrom('encoded', 'encoded', 'encoded', 'raw', 'double', 'broken');

function encodePart(text: string, how: string): string {
  if (how === 'raw') return text.replace(/[#&\s]/g, (c) => percentEncode(c));
  if (how === 'double') return percentEncode(percentEncode(text));
  if (how === 'broken') return `${percentEncode(text)}%${text.length % 2 ? 'g' : ''}`;
  return percentEncode(text);
}

const queryArbitrary: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constant(''), weight: 2 },
  {
    arbitrary: fc
      .array(fc.tuple(nameArbitrary, valueArbitrary, encodingArbitrary, fc.boolean()), { maxLength: 8 })
      .map((pairs) =>
        pairs
          .map(([name, value, how, withEquals]) =>
            withEquals || value !== ''
              ? `${encodePart(name, how)}=${encodePart(value, how)}`
              : encodePart(name, how),
          )
          .join('&'),
      ),
    weight: 8,
  },
  // Many parameters at once (more than parseRequest looks at), and a query past the URL limit.
  {
    arbitrary: fc.integer({ min: 21, max: 400 }).map((n) => Array.from({ length: n }, () => 'a=1').join('&')),
    weight: 1,
  },
  { arbitrary: fc.integer({ min: 4_100, max: 9_000 }).map((n) => `currency=${'U'.repeat(n)}`), weight: 1 },
);

/** Paths: the routes and built files (with valid and hostile slugs), plus traversal and junk. */
function pathArbitrary(targets: HostileTargets): fc.Arbitrary<string> {
  const builtPaths = [...new Set(targets.publicRequests.map((request) => request.path))];
  const files = [...targets.builtFiles.slice(0, 200), 'index.html', 'api/v1/status/index.json'];
  const slugged = ROUTES.filter((route) => route.path.includes(':slug')).map((route) => route.path);
  const validSlugs = builtPaths
    .filter((path) => path.startsWith('/api/v1/markets/cot/'))
    .map((path) => path.slice('/api/v1/markets/cot/'.length));
  const segment = fc.oneof(
    { arbitrary: fc.constantFrom(...validSlugs, 'zz-unknown', 'cpi', 'payrolls'), weight: 3 },
    { arbitrary: fc.constantFrom(...TRAVERSAL_SEGMENTS), weight: 3 },
    { arbitrary: valueArbitrary.map(percentEncode), weight: 3 },
    { arbitrary: valueArbitrary.map((text) => text.replace(/[?#/]/g, '')), weight: 1 },
  );
  const base = fc.oneof(
    { arbitrary: fc.constantFrom(...builtPaths), weight: 4 },
    {
      arbitrary: fc.tuple(fc.constantFrom(...slugged), segment).map(([path, s]) => path.replace(':slug', s)),
      weight: 4,
    },
    { arbitrary: fc.constantFrom(...files).map((file) => `/${file}`), weight: 1 },
    {
      arbitrary: fc.constantFrom(
        '/',
        '/index.html',
        '/api',
        '/api/',
        '/api/v1',
        '/api/v1/',
        '/api/v2/status',
        '/api/v0/status',
        '/API/V1/STATUS',
        '/api/v1/status/',
        '/api/v1/markets/cot/',
        '/api/v1/markets/cot//',
        '/api/v1/macro/',
        '/api//v1/status',
        '//api/v1/status',
        '/build-manifest.json',
        '/_headers',
        '/_redirects',
        '/favicon.ico',
        '/.env',
        '/package.json',
        '/data/CURRENT',
      ),
      weight: 2,
    },
    {
      arbitrary: fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => `/${parts.join('/')}`),
      weight: 2,
    },
  );
  // Sometimes climb from somewhere inside the tree.
  return fc
    .tuple(base, fc.constantFrom('', '', '', '/..', '/%2e%2e', '/%252e%252e', '/.%2e/.%2e/etc/passwd', '/'))
    .map(([path, tail]) => path + tail);
}

/** Authorization header variants: none, valid keys, and every kind of bad key. */
function authArbitrary(keys: HostileKeys): fc.Arbitrary<[string, string | null]> {
  const forged = fc
    .tuple(
      fc.stringMatching(/^[a-z2-7]{12}$/),
      fc.stringMatching(/^[0-9A-Za-z]{32}$/),
      fc.stringMatching(/^[0-9A-Za-z]{6}$/),
    )
    .map(([id, secret, crc]) => `Bearer mmds_${id}_${secret}${crc}`);
  const mutated = fc
    .tuple(fc.nat(keys.good.length - 1), fc.constantFrom('a', 'Z', '0', '_'))
    .map(([at, char]) => `Bearer ${keys.good.slice(0, at)}${char}${keys.good.slice(at + 1)}`);
  return fc.oneof(
    { arbitrary: fc.constant<[string, string | null]>(['none', null]), weight: 10 },
    { arbitrary: fc.constant<[string, string | null]>(['good', `Bearer ${keys.good}`]), weight: 8 },
    { arbitrary: fc.constant<[string, string | null]>(['narrow', `Bearer ${keys.narrow}`]), weight: 2 },
    { arbitrary: fc.constant<[string, string | null]>(['revoked', `Bearer ${keys.revoked}`]), weight: 1 },
    { arbitrary: fc.constant<[string, string | null]>(['expired', `Bearer ${keys.expired}`]), weight: 1 },
    { arbitrary: forged.map((value): [string, string | null] => ['forged', value]), weight: 2 },
    { arbitrary: mutated.map((value): [string, string | null] => ['mutated', value]), weight: 2 },
    {
      arbitrary: fc
        .constantFrom(
          `bearer ${keys.good}`,
          `BEARER ${keys.good}`,
          `Bearer  ${keys.good}`,
          `Bearer ${keys.good} `,
          `Bearer ${keys.good.slice(0, -1)}`,
          `Bearer ${keys.good}x`,
          `Bearer ${keys.good}, Bearer ${keys.narrow}`,
          `Token ${keys.good}`,
          keys.good,
          'Basic dXNlcjpwYXNzd29yZA==',
          'Bearer',
          'Bearer ',
          `Bearer ${'a'.repeat(3_000)}`,
          `Bearer mmds_${'a'.repeat(12)}_${'A'.repeat(38)}`,
          'Bearer mmds_\u00e9\u00e9\u00e9',
          'Bearer null',
          'Bearer undefined',
          'Bearer ../../state/keys/x',
        )
        .map((value): [string, string | null] => ['malformed', value]),
      weight: 3,
    },
  );
}

/** Extra request headers, printable ASCII so that fetch sends them as given. */
const extraHeadersArbitrary = fc.dictionary(
  fc.constantFrom(
    'If-None-Match',
    'Accept-Encoding',
    'Accept',
    'X-Forwarded-For',
    'Range',
    'Origin',
    'Cookie',
    'Content-Type',
    'X-Request-Id',
  ),
  fc.oneof(printable, fc.constantFrom('*', 'W/"x"', 'br;q=0, gzip;q=0', 'identity;q=0', '1.2.3.4, ::1, x')),
  { maxKeys: 3 },
);

/** A hostile request over the real routes, files and keys of the sample. */
export function hostileRequestArbitrary(
  targets: HostileTargets,
  keys: HostileKeys,
): fc.Arbitrary<HostileRequest> {
  // Public requests exactly as the static build lists them, so that success bodies are checked too.
  const built = fc.constantFrom(
    ...targets.publicRequests.map((request): [string, string] => [
      request.path,
      new URLSearchParams(request.query).toString(),
    ]),
  );
  const target = fc.oneof(
    { arbitrary: built, weight: 1 },
    { arbitrary: fc.tuple(pathArbitrary(targets), queryArbitrary), weight: 4 },
  );
  return fc
    .record({
      method: fc.oneof(
        { arbitrary: fc.constant('GET'), weight: 14 },
        { arbitrary: fc.constantFrom('HEAD', 'OPTIONS'), weight: 2 },
        { arbitrary: fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'PROPFIND', 'get'), weight: 2 },
      ),
      target,
      auth: authArbitrary(keys),
      headers: extraHeadersArbitrary,
    })
    .map(({ method, target: [path, query], auth: [authKind, authorization], headers }) => ({
      method,
      path,
      query,
      authKind,
      headers: authorization === null ? headers : { ...headers, Authorization: authorization },
    }));
}

/** Sends one request with fetch and returns the exchange. */
export async function sendHostile(baseUrl: string, request: HostileRequest): Promise<Exchange> {
  const target = request.query === '' ? request.path : `${request.path}?${request.query}`;
  const withBody = !['GET', 'HEAD', 'get'].includes(request.method);
  const response = await fetch(`${baseUrl}${target}`, {
    method: request.method,
    headers: request.headers,
    body: withBody ? '{"x":1}' : undefined,
    redirect: 'manual',
  });
  const body = await response.text();
  return {
    method: request.method.toUpperCase(),
    target,
    status: response.status,
    headers: headerRecord(response.headers),
    body,
  };
}

/**
 * Sends `numRuns` generated requests, one after another, and asserts that each keeps the
 * contract's error rules (findContractViolations). fast-check shrinks a failing request to a
 * small one and prints its seed.
 */
export async function assertHostileRequests(
  baseUrl: string,
  targets: HostileTargets,
  keys: HostileKeys,
  numRuns: number,
): Promise<HostileStats> {
  const stats: HostileStats = { requests: 0, byStatus: {}, byAuth: {} };
  await fc.assert(
    fc.asyncProperty(hostileRequestArbitrary(targets, keys), async (request) => {
      const exchange = await sendHostile(baseUrl, request);
      stats.requests += 1;
      stats.byStatus[exchange.status] = (stats.byStatus[exchange.status] ?? 0) + 1;
      stats.byAuth[request.authKind] = (stats.byAuth[request.authKind] ?? 0) + 1;
      expect(findContractViolations(exchange), `${request.method} ${exchange.target.slice(0, 300)}`).toEqual(
        [],
      );
    }),
    { numRuns },
  );
  return stats;
}
