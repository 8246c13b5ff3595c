import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller } from '../contract/authorise.ts';
import { KEYED_CACHE_CONTROL } from '../contract/header-rules.ts';
import type { RouteDefinition } from '../contract/routes.ts';
import type { Decision } from '../rate-limit/sliding-log.ts';
import { MAX_LOGGED_PATH } from './access-log.ts';
import { bearerToken } from './bearer-token.ts';
import { hostAccepted } from './check-host.ts';
import { answerAndLog, chooseAnswer, clientIpOf, handOverAfterFailure } from './fast-answer.ts';
import type { Representation } from './http-response.ts';
import { namesOtherSnapshot } from './monotonic-read.ts';
import { commonFields, type PreparedLists, prepareLists } from './prepare-response.ts';
import type { NodeRequestHandler } from './public-fast-path.ts';
import type { ResponseCache } from './response-cache.ts';

/** A keyed answer the general path gave: what the fast path needs to give it again. */
interface KeyedAnswer {
  /** Its key in the response cache, which holds the body (the fast path never keeps one alive). */
  cacheKey: string;
  route: RouteDefinition;
  /** The path for the log line. */
  path: string;
}

/** The raw URLs the fast path keeps answers for, at most (the oldest go first). */
const MAX_URLS = 10_000;

/**
 * The keyed answers of the snapshot in service, by raw request URL and then by the caller's
 * scopes: two keys with the same scopes get the same view (contract/authorise.ts and the
 * cot:history view read nothing else of a key), so one body serves both. Emptied when the
 * snapshot changes.
 */
export class KeyedAnswers {
  #snapshot: string | null = null;
  readonly #byUrl = new Map<string, Map<string, KeyedAnswer>>();
  readonly #maxUrls: number;

  constructor(maxUrls = MAX_URLS) {
    this.#maxUrls = maxUrls;
  }

  /** Called by the general path after it answered a keyed request of a repeatable route. */
  remember(
    rawUrl: string,
    scopes: readonly string[],
    snapshot: string,
    answer: { cacheKey: string; route: RouteDefinition; path: string },
  ): void {
    if (snapshot !== this.#snapshot) {
      this.#byUrl.clear();
      this.#snapshot = snapshot;
    }
    let byScopes = this.#byUrl.get(rawUrl);
    if (!byScopes) {
      if (this.#byUrl.size >= this.#maxUrls) this.#byUrl.delete(this.#byUrl.keys().next().value!);
      byScopes = new Map();
      this.#byUrl.set(rawUrl, byScopes);
    }
    byScopes.set(scopesOf(scopes), { ...answer, path: answer.path.slice(0, MAX_LOGGED_PATH) });
  }

  /** The answers remembered for a raw URL in a snapshot, if that snapshot is the one they are of. */
  lookup(rawUrl: string, snapshot: string | null): Map<string, KeyedAnswer> | undefined {
    return snapshot !== null && snapshot === this.#snapshot ? this.#byUrl.get(rawUrl) : undefined;
  }

  get size(): number {
    return this.#byUrl.size;
  }
}

/** The sorted scopes of a record, once per scopes array (a cached record keeps its array). */
const SCOPE_KEYS = new WeakMap<readonly string[], string>();

function scopesOf(scopes: readonly string[]): string {
  let key = SCOPE_KEYS.get(scopes);
  if (key === undefined) {
    key = [...scopes].sort().join(' ');
    SCOPE_KEYS.set(scopes, key);
  }
  return key;
}

/** What the keyed fast path needs, injected by the composition root. */
export interface KeyedFastPathDeps {
  answers: KeyedAnswers;
  cache: ResponseCache;
  /** The id of the snapshot in service, or null. */
  currentSnapshot: () => string | null;
  /**
   * The caller a bearer token proves, or null for any refusal, without logging it: a refused
   * key goes on to the general path, which refuses it and logs the refusal once. Synchronous
   * when the key's record is in memory.
   */
  verify: (token: string) => Caller | null | Promise<Caller | null>;
  consume: (bucket: string, limit: number) => Decision | Promise<Decision>;
  resolveClientIp: (socketAddress: string, forwardedFor: string | null) => string;
  log: (entry: Record<string, unknown>) => void;
}

/**
 * Creates the node:http listener that answers a keyed GET or HEAD the general path has already
 * answered in this snapshot, for a key with the same scopes: the raw URL (exactly as sent) finds
 * the remembered answer, the key is verified and counted as the general path does, and the body
 * comes from the response cache with header lists made once per body. No URL parsing, no
 * parameter schema, no Request or Headers object. It answers exactly as the general path would
 * (same status, headers and body, 304 and compressed copies, the same 429 and log line); whatever
 * it cannot (an unknown URL, a refused key, other scopes, a body evicted from the cache, an
 * encoding not made yet, a request naming another snapshot) goes to `next` untouched.
 */
export function createKeyedFastPath(deps: KeyedFastPathDeps, next: NodeRequestHandler): NodeRequestHandler {
  /** Header lists per body, made on its first fast answer (weakly held: the cache owns bodies). */
  const lists = new WeakMap<Representation, PreparedLists>();

  const listsOf = (representation: Representation, answer: KeyedAnswer, snapshot: string): PreparedLists => {
    const made = lists.get(representation);
    // Kept unless the general path has since added a compressed copy, which needs its list.
    if (
      made &&
      (made.gzip !== undefined || !representation.gzip) &&
      (made.br !== undefined || !representation.br)
    )
      return made;
    const common = commonFields(
      answer.route,
      snapshot,
      KEYED_CACHE_CONTROL,
      representation.etag,
      representation.link,
    );
    const fresh = prepareLists(common, representation);
    lists.set(representation, fresh);
    return fresh;
  };

  /** Answers once the key is verified; what it cannot answer goes to `next`. */
  const answer = (
    request: IncomingMessage,
    response: ServerResponse,
    answers: Map<string, KeyedAnswer>,
    snapshot: string,
    caller: Caller | null,
    started: number,
  ): void => {
    const found = caller ? answers.get(scopesOf(caller.scopes)) : undefined;
    const representation = found ? deps.cache.get(found.cacheKey) : undefined;
    const chosen =
      found && representation
        ? chooseAnswer(request.headers, representation, listsOf(representation, found, snapshot))
        : null;
    if (!caller || !found || !chosen) {
      next(request, response);
      return;
    }
    const send = (decision: Decision) =>
      answerAndLog(request, response, chosen, decision, {
        log: deps.log,
        path: found.path,
        ip: clientIpOf(request, deps.resolveClientIp),
        keyId: caller.keyId,
        snapshot,
        started,
      });
    let decision: Decision | Promise<Decision>;
    try {
      decision = deps.consume(`key:${caller.keyId}`, caller.rateLimit);
    } catch {
      // Nothing was counted: the general path decides again and answers whatever the limiter throws.
      next(request, response);
      return;
    }
    if (decision instanceof Promise) decision.then(send, () => next(request, response));
    else send(decision);
  };

  return (request, response) => {
    const started = performance.now();
    const { method, url, headers } = request;
    const authorization = headers.authorization;
    const snapshot = deps.currentSnapshot();
    const answers =
      (method === 'GET' || method === 'HEAD') && url !== undefined && authorization !== undefined
        ? deps.answers.lookup(url, snapshot)
        : undefined;
    const token = answers ? bearerToken(authorization!) : undefined;
    if (
      !answers ||
      !token ||
      // A request that names the snapshot it last saw: the general path keeps reads monotonic.
      namesOtherSnapshot(headers, snapshot) ||
      // A missing or bad Host is the general path's 400, counted and logged there.
      !hostAccepted(request)
    ) {
      next(request, response);
      return;
    }
    const fail = (error: unknown) => handOverAfterFailure(error, request, response, next, deps.log);
    // With the key's record in memory and the in-process limiter, no promise is made.
    let verified: Caller | null | Promise<Caller | null>;
    try {
      verified = deps.verify(token);
    } catch {
      verified = null;
    }
    if (verified instanceof Promise) {
      verified
        .catch(() => null)
        .then((caller) => answer(request, response, answers, snapshot!, caller, started))
        .catch(fail);
    } else {
      try {
        answer(request, response, answers, snapshot!, verified, started);
      } catch (error) {
        fail(error);
      }
    }
  };
}
