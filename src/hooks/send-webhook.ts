import { lookup as dnsLookup } from 'node:dns';
import { type Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { ReleaseEvent } from '../events/event.ts';
import { PIPELINE_VERSION } from '../version.ts';
import { type AddressPolicy, isAllowedHost, refusalOf } from './address-policy.ts';
import { signDelivery } from './signing-secret.ts';

/** A receiver's answer body is read up to this much and dropped (only the status counts). */
const MAX_ANSWER_BYTES = 64 * 1024;

/** What one attempt came to. */
export type AttemptOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'http'; status: number; retryAfter: string | null }
  /**
   * No HTTP answer: DNS, connection, TLS or timeout; `refused` when the address policy refused
   * it. `message` may name the host, address and port (for the operator's dead letters); `code`
   * never does (Node's error code, EREFUSEDADDRESS or ETIMEOUT), so it is what logs carry.
   */
  | { kind: 'network'; message: string; code: string; refused: boolean };

/** The error code of an attempt the address policy refused. */
const REFUSED_CODE = 'EREFUSEDADDRESS';

/** The Standard Webhooks request of one event: its body and headers. */
export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

/**
 * The body of a delivery: Standard Webhooks' recommended envelope, `type` and `timestamp` (when the
 * service knew it) around the event as the event log holds it (the same object SSE sends).
 */
export function webhookBody(event: ReleaseEvent): string {
  return JSON.stringify({ type: event.type, timestamp: event.observed_at, data: event });
}

/**
 * Signs a delivery as Standard Webhooks says: `webhook-id` is the event id (the receiver's key
 * for deduplication: a retry carries the same id), `webhook-timestamp` the attempt's time in
 * seconds, and `webhook-signature` one `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` (or
 * `v1a,<base64 ed25519 signature>`) per valid secret, space-separated (two during a rotation's
 * grace period).
 */
export function signWebhook(event: ReleaseEvent, secrets: readonly string[], at: Date): SignedRequest {
  const body = webhookBody(event);
  const signature = secrets.map((secret) => signDelivery(secret, event.id, at, body)).join(' ');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': `mmds-webhooks/${PIPELINE_VERSION}`,
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    },
  };
}

/** Options of one attempt. */
export interface SendOptions {
  policy: AddressPolicy;
  timeoutMs: number;
  /** Name resolution (dns.lookup); tests give one that answers differently the second time. */
  lookup?: LookupFunction;
  /**
   * Keep-alive connections to the receiver (receiver-pool.ts); without one, a connection per
   * attempt. A kept connection was checked against the policy when it was opened.
   */
  agent?: Agent;
}

/**
 * Posts a signed delivery once. Never throws: every failure is an outcome. Redirects are not
 * followed (a 3xx is a failure to retry), proxies are not used, and the address is checked
 * against the policy when resolved and again once connected.
 */
export async function sendWebhook(
  url: string,
  request: SignedRequest,
  options: SendOptions,
): Promise<AttemptOutcome> {
  const first = await sendOnce(url, request, options);
  // A kept connection the receiver closed as it was reused fails before any answer: the request
  // never reached it, so it goes again at once on a new connection, as browsers and undici do.
  if (first.reused && first.outcome.kind === 'network' && STALE_CONNECTION.has(first.outcome.code))
    return (await sendOnce(url, request, { ...options, agent: undefined })).outcome;
  return first.outcome;
}

/** Errors of a kept-alive connection that the receiver had closed. */
const STALE_CONNECTION = new Set(['ECONNRESET', 'EPIPE']);

/** One request; `reused` when it went over a kept-alive connection. */
function sendOnce(
  url: string,
  request: SignedRequest,
  options: SendOptions,
): Promise<{ outcome: AttemptOutcome; reused: boolean }> {
  const target = new URL(url);
  const trusted = isAllowedHost(target, options.policy);
  // A literal address is never looked up, and one that carries a refused IPv4 address (NAT64,
  // 6to4) may not even connect here: it is judged before any packet is sent.
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  const early = trusted || isIP(literal) === 0 ? null : refusalOf(literal, options.policy);
  if (early)
    return Promise.resolve({
      outcome: { kind: 'network', message: early, code: REFUSED_CODE, refused: true },
      reused: false,
    });
  const resolve = options.lookup ?? (dnsLookup as LookupFunction);
  let refusal: string | null = null;
  // Every address the name has must be allowed: a name with one public and one private address
  // could otherwise be made to connect to the private one.
  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as Array<{ address: string; family: number }>;
      for (const entry of list) {
        refusal = trusted ? null : refusalOf(entry.address, options.policy);
        if (refusal) return callback(Object.assign(new Error(refusal), { code: REFUSED_CODE }), '', 0);
      }
      const first = list[0];
      if (!first)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      if (lookupOptions.all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      return callback(null, first.address, first.family);
    });
  };
  return new Promise((settle) => {
    let done = false;
    let reused = false;
    const finish = (outcome: AttemptOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      settle({ outcome, reused });
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      target,
      {
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
        lookup: guardedLookup,
        agent: options.agent ?? false,
      },
      (response: IncomingMessage) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        const status = response.statusCode ?? 0;
        const answered = () =>
          finish(
            status >= 200 && status < 300
              ? { kind: 'delivered', status }
              : { kind: 'http', status, retryAfter: headerText(response.headers['retry-after']) },
          );
        response.on('end', answered);
        response.on('close', answered);
        response.on('error', answered);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({
        kind: 'network',
        message: `no answer within ${options.timeoutMs} ms`,
        code: 'ETIMEOUT',
        refused: false,
      });
    }, options.timeoutMs);
    req.on('socket', (socket) => {
      // A kept-alive connection is connected already, and was checked when it connected.
      if (!socket.connecting) {
        reused = true;
        return;
      }
      socket.once('connect', () => {
        // The address actually connected to, whatever the resolver said before (DNS rebinding).
        const remote = socket.remoteAddress ?? '';
        const late = trusted ? null : refusalOf(remote, options.policy);
        if (late) {
          refusal = late;
          req.destroy();
          finish({ kind: 'network', message: late, code: REFUSED_CODE, refused: true });
        }
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (refusal) finish({ kind: 'network', message: refusal, code: REFUSED_CODE, refused: true });
      else
        finish({
          kind: 'network',
          message: error.code ? `${error.code} (${error.message})` : error.message,
          code: error.code ?? 'ERROR',
          refused: false,
        });
    });
    req.end(request.body);
  });
}

function headerText(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}
