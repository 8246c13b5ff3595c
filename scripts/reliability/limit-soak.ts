/**
 * Rate-limit soak: one client sends requests at a fixed rate (by default twice a limit of 60 per
 * minute: 2 a second) for a while against a running server, on its own schedule whatever the
 * answers, then checks from its own timestamps what the contract promises (CONTRACT section 3):
 *
 * - no rolling 60 s window holds more than `limit` granted requests. A decision happened between
 *   sending and receiving, so grants sent at or after t and received before t + 60 s were
 *   certainly decided within one 60 s window: at most `limit` of them, for every t;
 * - X-RateLimit-Remaining is on every answer and never negative;
 * - every 429 has a Retry-After of whole seconds (at least 1), and it is honest: the first
 *   request sent after waiting it is accepted unless one of ours took the freed place first, and
 *   no place frees more than a second (the rounding) before it said;
 * - then, a few times: hit a 429, wait exactly Retry-After, send one request: it is accepted.
 *
 *   npx node scripts/reliability/limit-soak.ts --url http://127.0.0.1:4321[,http://…:4322]
 *     [--key mmds_…] [--limit 60] [--rate 2] [--seconds 60] [--path /api/v1/status] [--checks 3]
 *
 * Prints a JSON report; exits 1 when a check fails. The long test suite runs it against a real
 * server (test/reliability-long/limit-soak.test.ts).
 */
import { parseArgs } from 'node:util';

/** What to soak. */
export interface SoakOptions {
  /** Base URLs without a trailing slash; requests go round-robin (instances sharing Redis). */
  urls: readonly string[];
  /** A key to send as Bearer, or null for anonymous requests (limited per client IP). */
  key: string | null;
  /** The limit per minute the server applies to this client. */
  limit: number;
  ratePerSecond: number;
  seconds: number;
  path: string;
  /** How many "wait Retry-After, then try" checks to run after the soak. */
  honestyChecks: number;
}

/** One request of the soak, with the client's own clock (ms since the soak started). */
export interface SoakRequest {
  sentMs: number;
  receivedMs: number;
  status: number;
  remaining: number | null;
  retryAfterS: number | null;
}

/** What the soak saw and which promises it found broken. */
export interface SoakReport {
  requests: number;
  granted: number;
  refused: number;
  other: number;
  maxGrantedInAnyWindow: number;
  minRemaining: number | null;
  retryAftersChecked: number;
  honesty: Array<{ waitedS: number; status: number }>;
  violations: string[];
}

const WINDOW_MS = 60_000;

/** Checks a soak's requests against the contract's rate-limit promises; returns what is broken. */
export function findSoakViolations(requests: readonly SoakRequest[], limit: number): string[] {
  const violations: string[] = [];
  const sorted = [...requests].sort((a, b) => a.sentMs - b.sentMs);
  const granted = sorted.filter((r) => r.status === 200);
  for (const first of granted) {
    const within = granted.filter((r) => r.sentMs >= first.sentMs && r.receivedMs < first.sentMs + WINDOW_MS);
    if (within.length > limit)
      violations.push(
        `${within.length} granted within 60 s of the request sent at ${Math.round(first.sentMs)} ms`,
      );
  }
  for (const request of sorted) {
    if (request.remaining === null || request.remaining < 0)
      violations.push(`X-RateLimit-Remaining ${request.remaining} at ${Math.round(request.sentMs)} ms`);
    if (request.status !== 200 && request.status !== 429)
      violations.push(`status ${request.status} at ${Math.round(request.sentMs)} ms`);
  }
  for (const [i, refused] of sorted.entries()) {
    if (refused.status !== 429) continue;
    const wait = refused.retryAfterS;
    if (wait === null || !Number.isInteger(wait) || wait < 1) {
      violations.push(`429 at ${Math.round(refused.sentMs)} ms with Retry-After ${wait}`);
      continue;
    }
    const later = sorted.slice(i + 1);
    const firstGrant = later.find((r) => r.status === 200);
    // The place frees at (decision + wait), and the decision was no earlier than sending.
    if (firstGrant && firstGrant.receivedMs < refused.sentMs + (wait - 1) * 1000 - 5)
      violations.push(
        `429 at ${Math.round(refused.sentMs)} ms said ${wait} s, but a request was granted at ${Math.round(firstGrant.receivedMs)} ms`,
      );
    const afterWaiting = later.find((r) => r.sentMs >= refused.receivedMs + wait * 1000);
    if (afterWaiting && afterWaiting.status !== 200) {
      const takenBefore = later.some((r) => r.status === 200 && r.sentMs < afterWaiting.sentMs);
      if (!takenBefore)
        violations.push(
          `429 at ${Math.round(refused.sentMs)} ms said ${wait} s, yet the request sent at ${Math.round(afterWaiting.sentMs)} ms was refused`,
        );
    }
  }
  return violations;
}

/** Runs the soak against a server and checks it. */
export async function runLimitSoak(options: SoakOptions): Promise<SoakReport> {
  const headers: Record<string, string> = options.key ? { Authorization: `Bearer ${options.key}` } : {};
  let sent = 0;
  const send = async (started: number): Promise<SoakRequest> => {
    const sentMs = performance.now() - started;
    const url = options.urls[sent++ % options.urls.length];
    const response = await fetch(`${url}${options.path}`, { headers });
    await response.arrayBuffer();
    const remaining = response.headers.get('x-ratelimit-remaining');
    const retryAfter = response.headers.get('retry-after');
    return {
      sentMs,
      receivedMs: performance.now() - started,
      status: response.status,
      remaining: remaining === null ? null : Number(remaining),
      retryAfterS: retryAfter === null ? null : Number(retryAfter),
    };
  };
  const started = performance.now();
  const intervalMs = 1000 / options.ratePerSecond;
  const count = Math.round(options.seconds * options.ratePerSecond);
  const pending: Array<Promise<SoakRequest>> = [];
  for (let i = 0; i < count; i++) {
    const due = started + i * intervalMs;
    const delay = due - performance.now();
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    pending.push(send(started));
  }
  const requests = await Promise.all(pending);
  const violations = findSoakViolations(requests, options.limit);
  const honesty: SoakReport['honesty'] = [];
  for (let check = 0; check < options.honestyChecks; check++) {
    let refused: SoakRequest | null = null;
    for (let tries = 0; tries < options.limit + 1 && !refused; tries++) {
      const answer = await send(started);
      if (answer.status === 429) refused = answer;
    }
    if (!refused) {
      violations.push(`honesty check ${check + 1}: no 429 after ${options.limit + 1} requests`);
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, refused.retryAfterS! * 1000));
    const retried = await send(started);
    honesty.push({ waitedS: refused.retryAfterS!, status: retried.status });
    if (retried.status !== 200)
      violations.push(
        `honesty check ${check + 1}: waited ${refused.retryAfterS} s as told, got ${retried.status}`,
      );
  }
  const granted = requests.filter((r) => r.status === 200);
  const remainders = requests.map((r) => r.remaining).filter((n): n is number => n !== null);
  return {
    requests: requests.length,
    granted: granted.length,
    refused: requests.filter((r) => r.status === 429).length,
    other: requests.filter((r) => r.status !== 200 && r.status !== 429).length,
    maxGrantedInAnyWindow: Math.max(
      0,
      ...granted.map(
        (first) =>
          granted.filter((r) => r.sentMs >= first.sentMs && r.receivedMs < first.sentMs + WINDOW_MS).length,
      ),
    ),
    minRemaining: remainders.length ? Math.min(...remainders) : null,
    retryAftersChecked: requests.filter((r) => r.status === 429).length,
    honesty,
    violations,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      limit: { type: 'string', default: '60' },
      rate: { type: 'string', default: '2' },
      seconds: { type: 'string', default: '60' },
      path: { type: 'string', default: '/api/v1/status' },
      checks: { type: 'string', default: '3' },
    },
  });
  if (!values.url) {
    process.stderr.write(
      'usage: limit-soak.ts --url http://127.0.0.1:4321 [--key mmds_…] [--limit 60] [--rate 2] [--seconds 60]\n',
    );
    process.exit(2);
  }
  const report = await runLimitSoak({
    urls: values.url.split(',').map((url) => url.replace(/\/$/, '')),
    key: values.key ?? null,
    limit: Number(values.limit),
    ratePerSecond: Number(values.rate),
    seconds: Number(values.seconds),
    path: values.path,
    honestyChecks: Number(values.checks),
  });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  process.exit(report.violations.length === 0 ? 0 : 1);
}

if (import.meta.main) await main();
