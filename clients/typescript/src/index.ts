/**
 * The MMDS API client: the generated types (./schema.ts) over openapi-fetch, plus what a caller of
 * this API needs on top: the API key, 429 retries honouring Retry-After, errors as MmdsApiError,
 * and cursor paging as an async iterator.
 */
import createOpenApiFetch, { type Client, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { components, operations, paths } from './schema.ts';

export type { components, operations, paths };

/** Every media type, as openapi-fetch's client is declared by default. */
type AnyMedia = `${string}/${string}`;

/** The paths that answer GET (all of them: the API is read-only). */
export type GetPath = {
  [P in keyof paths]: paths[P] extends { get: unknown } ? P : never;
}[keyof paths];

type RequiredKeysOf<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

/** The options of a GET on `P`: required when the path has required parameters. */
export type GetInit<P extends GetPath> = MaybeOptionalInit<paths[P], 'get'>;
type InitArgs<I> = RequiredKeysOf<I> extends never ? [init?: I] : [init: I];

/** The success payload of a GET on `P` (the text for a `.csv` path). */
export type GetData<P extends GetPath> = NonNullable<
  FetchResponse<paths[P]['get'], object, AnyMedia>['data']
>;

/** The revisions view of /api/v1/macro/{slug} and /api/v1/observations: Observation rows. */
export type SeriesHistoryRevisions = components['schemas']['SeriesHistoryRevisions'];
/** The transformed view of the same endpoints (units, frequency or aggregation given): TransformedValue rows. */
export type SeriesHistoryTransformed = components['schemas']['SeriesHistoryTransformed'];
/** The ALFRED view of the same endpoints (realtime_start/realtime_end, output_type or vintage_dates given). */
export type SeriesHistoryVintages = components['schemas']['SeriesHistoryVintages'];
/** Any body of /api/v1/macro/{slug} or /api/v1/observations, tagged by meta.view. */
export type SeriesHistoryBody = SeriesHistoryRevisions | SeriesHistoryTransformed | SeriesHistoryVintages;

/**
 * Whether a body of /api/v1/macro/{slug} or /api/v1/observations is the transformed view
 * (`meta.view === 'transformed'`). The body is a union of the two views tagged by meta.view, and
 * TypeScript does not narrow a union by a nested property: this guard narrows the whole body, so
 * `data` is TransformedValue rows (else Observation rows).
 */
export function isTransformedView(body: SeriesHistoryBody): body is SeriesHistoryTransformed {
  return body.meta.view === 'transformed';
}

/** Whether such a body is the revisions view (`meta.view === 'revisions'`): Observation rows. */
export function isRevisionsView(body: SeriesHistoryBody): body is SeriesHistoryRevisions {
  return body.meta.view === 'revisions';
}

/** Whether such a body is the ALFRED vintages view (`meta.view === 'vintages'`): VintageValue rows. */
export function isVintagesView(body: SeriesHistoryBody): body is SeriesHistoryVintages {
  return body.meta.view === 'vintages';
}

/** The machine-readable error codes of the API. */
export type MmdsErrorCode = components['schemas']['Error']['error']['code'];

/** A non-2xx answer of the API, with its error envelope `{"error":{"code","message","request_id"}}`. */
export class MmdsApiError extends Error {
  override readonly name = 'MmdsApiError';
  /** The HTTP status. */
  readonly status: number;
  /** The API's error code (`invalid_parameter`, `unauthorized`, `rate_limited`, ...). */
  readonly code: MmdsErrorCode;
  /** The id of the request (also the X-Request-Id header): quote it when reporting a problem. */
  readonly request_id: string;
  /** Seconds from Retry-After on a 429 (null otherwise). */
  readonly retry_after: number | null;

  constructor(init: {
    status: number;
    code: MmdsErrorCode;
    message: string;
    request_id: string;
    retry_after: number | null;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.request_id = init.request_id;
    this.retry_after = init.retry_after;
  }
}

/** Options of createClient. */
export interface MmdsClientOptions {
  /** The server, e.g. `https://api.example.org` (paths start at `/api/v1`). */
  baseUrl: string;
  /** An API key (`mmds_...`), sent as `Authorization: Bearer <key>`; without one, public access. */
  apiKey?: string;
  /** How many times a 429 is retried after waiting its Retry-After (default 2; 0: never). */
  maxRetries?: number;
  /**
   * The longest wait for one retry, in milliseconds (default 60000). A 429 whose Retry-After is
   * longer is not waited for: MmdsApiError is thrown at once, its `retry_after` saying how long.
   */
  maxRetryWaitMs?: number;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: (request: Request) => Promise<Response>;
}

/** A GET path whose JSON payload is a page: `data` is an array and `meta.next_cursor` the next page. */
export type PagedPath = {
  [P in GetPath]: GetData<P> extends { data: unknown[]; meta: infer M }
    ? true extends (M extends unknown ? ('next_cursor' extends keyof M ? true : never) : never)
      ? P
      : never
    : never;
}[GetPath];

/** One row of the pages of `P`. */
export type PageRow<P extends PagedPath> = GetData<P> extends { data: (infer R)[] } ? R : never;

/** One event of the release event log (/api/v1/events, docs/api/events.md). */
export type ReleaseEvent = GetData<'/api/v1/events'>['data'][number];

/** Options of MmdsClient.events. */
export interface EventsOptions {
  /** Start after this event id (default: the oldest event the server keeps). */
  after?: string;
  /** Filters, as the endpoint takes them (comma-separated lists; `*` in series patterns). */
  source?: string;
  series?: string;
  type?: string;
  /** Events per request (1 to 1000, default 100). */
  limit?: number;
  /** Keep waiting for new events once the log is read (default false: stop at its end). */
  follow?: boolean;
  /** While following, how long to wait before asking again, in ms (default 60000). */
  pollMs?: number;
  /** Stops following (the iterator returns). */
  signal?: AbortSignal;
}

/** The MMDS client. */
export interface MmdsClient {
  /** The openapi-fetch client underneath (its `{ data, error, response }` results; errors throw too). */
  readonly raw: Client<paths>;
  /**
   * GET a path: resolves with its payload (the text for a `.csv` path), throws MmdsApiError for a
   * non-2xx answer.
   */
  get<P extends GetPath>(path: P, ...init: InitArgs<GetInit<P>>): Promise<GetData<P>>;
  /**
   * Every row of a paged GET, page after page (following `meta.next_cursor`), as an async iterator.
   * `params.query.limit` sets the page size; the other parameters stay the same on every page.
   */
  paginate<P extends PagedPath>(path: P, ...init: InitArgs<GetInit<P>>): AsyncGenerator<PageRow<P>>;
  /**
   * The release events the caller may see, in log order, as an async iterator over the JSON pages
   * of /api/v1/events (following `meta.next_after`). Keep the `id` of the last event handled and
   * pass it as `after` to resume; a 410 (MmdsApiError code `gone`) means it is older than the log.
   */
  events(options?: EventsOptions): AsyncGenerator<ReleaseEvent>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds of a Retry-After header (delta-seconds or an HTTP date); null when absent or unreadable. */
function retryAfterSeconds(response: Response): number | null {
  const value = response.headers.get('retry-after');
  if (value === null) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

async function toError(response: Response): Promise<MmdsApiError> {
  let body: unknown = null;
  try {
    body = await response.clone().json();
  } catch {
    // not JSON (a proxy's page, say): the status and headers still say what happened
  }
  const error = (body as { error?: Partial<components['schemas']['Error']['error']> } | null)?.error;
  return new MmdsApiError({
    status: response.status,
    code: (error?.code ?? 'internal_error') as MmdsErrorCode,
    message: error?.message ?? `HTTP ${response.status} ${response.statusText}`.trim(),
    request_id: error?.request_id ?? response.headers.get('x-request-id') ?? '',
    retry_after: response.status === 429 ? retryAfterSeconds(response) : null,
  });
}

/** A client of the MMDS API at `baseUrl`. */
export function createClient(options: MmdsClientOptions): MmdsClient {
  const maxRetries = options.maxRetries ?? 2;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 60_000;
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));

  // openapi-fetch builds each request; this fetch retries 429s and turns non-2xx into MmdsApiError.
  const fetchWithRetry = async (request: Request): Promise<Response> => {
    for (let attempt = 0; ; attempt += 1) {
      const response = await baseFetch(request.clone());
      if (response.ok || response.status === 304) return response;
      if (response.status === 429 && attempt < maxRetries) {
        const seconds = retryAfterSeconds(response) ?? 1;
        if (seconds * 1000 <= maxRetryWaitMs) {
          await response.body?.cancel();
          await sleep(seconds * 1000);
          continue;
        }
      }
      throw await toError(response);
    }
  };

  const raw = createOpenApiFetch<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    fetch: fetchWithRetry,
    headers: options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {},
  });

  // biome-ignore lint/suspicious/noExplicitAny: one call for every path; the public signature types it
  const get = async (path: GetPath, init?: any): Promise<any> => {
    const parseAs = init?.parseAs ?? (path.endsWith('.csv') ? 'text' : 'json');
    // biome-ignore lint/suspicious/noExplicitAny: as above
    const result = await (raw.GET as any)(path, { ...init, parseAs });
    return result.data;
  };

  // biome-ignore lint/suspicious/noExplicitAny: as above
  async function* paginate(path: PagedPath, init?: any): AsyncGenerator<any> {
    let cursor: string | null | undefined;
    do {
      const query = { ...(init?.params?.query ?? {}), ...(cursor ? { cursor } : {}) };
      const page = (await get(path, { ...init, params: { ...init?.params, query } })) as {
        data: unknown[];
        meta: { next_cursor?: string | null };
      };
      yield* page.data;
      cursor = page.meta.next_cursor;
    } while (cursor);
  }

  async function* events(options: EventsOptions = {}): AsyncGenerator<ReleaseEvent> {
    let after = options.after ?? null;
    const { source, series, type, limit } = options;
    const filters = Object.fromEntries(
      Object.entries({ source, series, type, limit }).filter(([, value]) => value !== undefined),
    );
    while (!options.signal?.aborted) {
      const page = (await get('/api/v1/events', {
        params: { query: { ...filters, ...(after ? { after } : {}) } },
      })) as GetData<'/api/v1/events'>;
      yield* page.data;
      const moved = page.meta.next_after !== after;
      after = page.meta.next_after;
      if (moved) continue;
      if (!options.follow) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs ?? 60_000);
        options.signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  return { raw, get, paginate, events } as MmdsClient;
}
