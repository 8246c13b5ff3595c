import type { Timestamp } from '../model/records.ts';

/** A file downloaded from a publisher, ready for `ingest/` (an archive's member already unpacked). */
export interface FetchedFile {
  /** Local path of the file to ingest. */
  path: string;
  /** The URL it was downloaded from. */
  url: string;
  /** The member of the downloaded archive this file is, or null for a plain download. */
  member: string | null;
  retrieved_at: Timestamp;
  /** SHA-256 (hex) and size of the bytes as downloaded (the archive, for a zip). */
  sha256: string;
  bytes: number;
  /** Validators for the next conditional GET. */
  etag: string | null;
  last_modified: string | null;
}

/** One ingest that fetched files make: which parser, which files, which ingest options. */
export interface FetchedIngest {
  /** Ingest source id (`cftc`, `ecb`, `bls`, `fred`, `iso4217`, `m49`, `mic`, `tz`, `countries`). */
  source: string;
  files: FetchedFile[];
  /** Ingest options such as `series` (FRED: the series key the values are filed under). */
  options: Record<string, string>;
}

/** What a fetch found. Nothing is ingested by `fetch/`: the caller ingests, then commits state. */
export interface FetchResult {
  ingests: FetchedIngest[];
  /** URLs the publisher answered 304 Not Modified, or whose bytes equal the last ingested ones. */
  unchanged: string[];
  /** Plain-language notes for the operator, e.g. a year whose file is not out yet. */
  notices: string[];
}

/** HTTP behaviour of every download; defaults in `fetch/http-options.ts`. */
export interface HttpOptions {
  /** Attempts after the first on 5xx, 429, time-outs and broken connections. */
  retries: number;
  /** First back-off delay; doubles each attempt (with jitter). */
  backoffMs: number;
  /** Per-attempt time limit for the whole response. */
  timeoutMs: number;
  /** Refuse responses larger than this (declared or actual). */
  maxBytes: number;
  userAgent: string;
}

/** Validators remembered per URL from the last successful ingest (conditional GET). */
export interface FetchStateEntry {
  etag: string | null;
  last_modified: string | null;
  sha256: string;
  retrieved_at: Timestamp;
}

/** Where conditional-GET validators live (`<data dir>/fetch-state.json`). */
export interface FetchState {
  get(url: string): FetchStateEntry | null;
  /** Records the validators of files that were ingested successfully (durably, atomically). */
  commit(files: readonly FetchedFile[]): void;
}

/** What every fetcher gets. */
export interface FetchRequest {
  /** The publisher's root (the official one, or a mirror with the same URL layout). */
  baseUrl: string;
  /** A fresh directory for downloads; the caller removes it. */
  workDir: string;
  state: FetchState;
  now: () => Date;
  http: HttpOptions;
  /** Progress lines (stderr). */
  progress: (message: string) => void;
}

/** One publisher protocol. */
export interface Fetcher<Options = Record<string, never>> {
  id: string;
  /** The publisher's official root, overridable with MMDS_<SOURCE>_BASE_URL or mmds fetch --base-url. */
  defaultBaseUrl: string;
  fetch(request: FetchRequest, options: Options): Promise<FetchResult>;
}
