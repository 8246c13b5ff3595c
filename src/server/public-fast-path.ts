import type { IncomingMessage, ServerResponse } from 'node:http';
import { ROUTES, type RouteDefinition } from '../contract/routes.ts';
import type { Decision } from '../rate-limit/sliding-log.ts';
import { hostAccepted } from './check-host.ts';
import { answerAndLog, chooseAnswer, clientIpOf, handOverAfterFailure } from './fast-answer.ts';
import { namesOtherSnapshot } from './monotonic-read.ts';
import { type PreparedResponse, prepareResponse } from './prepare-response.ts';
import type { StaticSite } from './static-site.ts';

/** A node:http request listener. */
export type NodeRequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** What the fast path needs, injected by the composition root. */
export interface PublicFastPathDeps {
  staticSite: () => StaticSite | null;
  /** The id of the snapshot in service, or null. */
  currentSnapshot: () => string | null;
  /** Counts one anonymous request: synchronously with the in-process limiter, a promise with Redis. */
  consume: (bucket: string, limit: number) => Decision | Promise<Decision>;
  anonymousLimit: number;
  /** The limiter bucket of an anonymous client address (the same as the general path's). */
  anonymousBucket: (clientIp: string) => string;
  /** The client address rate limits are keyed on (the same rule as the general path's). */
  resolveClientIp: (socketAddress: string, forwardedFor: string | null) => string;
  log: (entry: Record<string, unknown>) => void;
}

const ROUTES_BY_ID = new Map<string, RouteDefinition>(ROUTES.map((route) => [route.id, route]));

/**
 * Creates the node:http listener that sits in front of h3 and answers the pre-rendered anonymous
 * public requests itself: a GET or HEAD without Authorization whose raw path and query are exactly
 * one of the requests `mmds build` pre-rendered for the snapshot in service (the live status
 * excepted). It answers as the general path would (same status, headers, body, 304 on a matching
 * ETag, gzip or brotli when accepted), counts against the same anonymous rate limit, and writes
 * the same log line; everything else goes to `next` (h3) untouched.
 *
 * Per file, the header lists are computed once; per request it does one Map lookup on the raw
 * URL, no URL parsing, no Request or Headers object and no promise (unless the limiter is Redis),
 * and fills the request id and rate-limit values into the prepared list in place (fast-answer.ts).
 */
export function createPublicFastPath(deps: PublicFastPathDeps, next: NodeRequestHandler): NodeRequestHandler {
  let site: StaticSite | null = null;
  let prepared = new Map<string, PreparedResponse>();

  /** The prepared answer to a raw URL, made on its first request; misses are not remembered. */
  const lookup = (url: string): PreparedResponse | null => {
    const current = deps.staticSite();
    if (current !== site) {
      site = current;
      prepared = new Map();
    }
    if (!current) return null;
    let response = prepared.get(url);
    if (response === undefined) {
      const hit = current.lookupRequest(url);
      const route = hit && hit.routeId !== 'status' ? ROUTES_BY_ID.get(hit.routeId) : undefined;
      if (!hit || !route) return null;
      response = prepareResponse(url, hit.entry, route, current.snapshot);
      prepared.set(url, response);
    }
    return response;
  };

  /** Answers a request the limiter decided; a failure there (a bug) is handed to h3. */
  const answer = (
    request: IncomingMessage,
    response: ServerResponse,
    found: PreparedResponse,
    decision: Decision,
    clientIp: string,
    started: number,
  ): void => {
    try {
      // A pre-rendered file has every copy it will have: an answer is always chosen.
      answerAndLog(request, response, chooseAnswer(request.headers, found.entry, found)!, decision, {
        log: deps.log,
        path: found.path,
        ip: clientIp,
        keyId: null,
        snapshot: found.snapshot,
        started,
      });
    } catch (error) {
      handOverAfterFailure(error, request, response, next, deps.log);
    }
  };

  return (request, response) => {
    const started = performance.now();
    const method = request.method;
    const url = request.url;
    const found = (method === 'GET' || method === 'HEAD') && url !== undefined ? lookup(url) : null;
    const headers = request.headers;
    if (
      !found ||
      headers.authorization !== undefined ||
      deps.currentSnapshot() !== found.snapshot ||
      // A request that names the snapshot it last saw: the general path keeps reads monotonic.
      namesOtherSnapshot(headers, found.snapshot) ||
      // A missing or bad Host is the general path's 400, counted and logged there.
      !hostAccepted(request)
    ) {
      next(request, response);
      return;
    }
    const clientIp = clientIpOf(request, deps.resolveClientIp);
    let decision: Decision | Promise<Decision>;
    try {
      decision = deps.consume(deps.anonymousBucket(clientIp), deps.anonymousLimit);
    } catch {
      // Nothing was counted: the general path decides again and answers whatever the limiter throws.
      next(request, response);
      return;
    }
    if (decision instanceof Promise) {
      decision.then(
        (settled) => answer(request, response, found, settled, clientIp, started),
        () => next(request, response),
      );
    } else {
      answer(request, response, found, decision, clientIp, started);
    }
  };
}
