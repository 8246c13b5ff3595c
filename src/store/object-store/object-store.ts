import { MmdsError, type MmdsErrorCode } from '../../lib/errors.ts';

/**
 * What the snapshot store needs from an object store, and nothing more: the rest of the code
 * never sees an SDK. Keys are relative to the store's prefix (`s3://bucket/prefix`).
 */
export interface ObjectStore {
  /** `s3://bucket/prefix`, for messages. */
  readonly url: string;
  /** The object's bytes, or null when there is none. */
  get(key: string): Promise<Buffer | null>;
  /**
   * Streams the object into a local file (created or replaced) and returns its SHA-256 and size
   * as received, or null when there is none (no file is written then).
   */
  getToFile(key: string, file: string): Promise<{ sha256: string; bytes: number } | null>;
  /** The object's size and the headers it was stored with, or null when there is none. */
  head(key: string): Promise<ObjectHead | null>;
  /** Keys under a key prefix, in key order, after `startAfter` when given. */
  list(keyPrefix: string, startAfter?: string): Promise<string[]>;
  /** Writes (or replaces) an object. */
  put(key: string, body: Buffer | string): Promise<void>;
  /**
   * Uploads a local file as an object (streamed, not read into memory), with the headers a reader
   * (a CDN using the bucket as its origin) gets back, when given.
   */
  putFile(key: string, file: string, headers?: ObjectHeaders): Promise<void>;
  /**
   * Creates the object only if no object has the key (`If-None-Match: *`): true when this call
   * created it, false when one was there already. Of concurrent creators exactly one gets true.
   */
  putIfAbsent(key: string, body: Buffer | string): Promise<boolean>;
  /** Removes an object; none under the key is no error. */
  delete(key: string): Promise<void>;
  /** Releases the connections. */
  close(): void;
}

/** What an object is served with besides its bytes; stored with it at upload. */
export interface ObjectHeaders {
  contentType?: string;
  cacheControl?: string;
  /** User metadata (`x-amz-meta-<name>`); names in lowercase. */
  metadata?: Record<string, string>;
}

/** An object's size and stored headers (the headers absent when it was stored without them). */
export interface ObjectHead extends ObjectHeaders {
  size: number;
}

/**
 * Why an object-store request failed, as far as the operator can act on it: the CLI maps each
 * kind to its error code (BUCKET_CODES), whose row of lib/errors.ts gives the exit code
 * (credentials: configuration, 78; the rest: unavailable, 69).
 */
export type ObjectStoreFailureKind =
  | 'unreachable'
  | 'credentials'
  | 'no_bucket'
  | 'denied'
  | 'no_conditional_writes'
  | 'failed';

/** The error code of each kind of failure (its exit code is the code's, lib/errors.ts). */
const BUCKET_CODES = {
  unreachable: 'bucket_unreachable',
  credentials: 'bucket_credentials',
  no_bucket: 'bucket_missing',
  denied: 'bucket_denied',
  no_conditional_writes: 'bucket_no_conditional_writes',
  failed: 'bucket_failed',
} as const satisfies Record<ObjectStoreFailureKind, MmdsErrorCode>;

/** The object store answered with an error, or could not be reached; the message says what to do. */
export class ObjectStoreError extends MmdsError {
  readonly kind: ObjectStoreFailureKind;

  constructor(message: string, options?: { cause?: unknown; kind?: ObjectStoreFailureKind }) {
    super(BUCKET_CODES[options?.kind ?? 'failed'], message, options);
    this.name = 'ObjectStoreError';
    this.kind = options?.kind ?? 'failed';
  }
}

/** Where a snapshot store lives: `s3://bucket` or `s3://bucket/prefix`. */
export interface ObjectStoreLocation {
  bucket: string;
  /** Without leading or trailing slash; '' for the bucket's root. */
  prefix: string;
}

/** Bucket names as S3 allows them (3 to 63 lowercase letters, digits, dots and hyphens). */
const BUCKET_PATTERN = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Parses `s3://bucket/prefix`; throws a one-line error for anything else. */
export function parseObjectStoreUrl(url: string): ObjectStoreLocation {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url.trim());
  if (!match) throw new Error(`not an object-store location: "${url}" (expected s3://bucket/prefix)`);
  const bucket = match[1]!;
  if (!BUCKET_PATTERN.test(bucket)) throw new Error(`not a valid bucket name in "${url}": "${bucket}"`);
  const prefix = match[2]!.replace(/\/+$/, '');
  if (prefix !== '' && prefix.split('/').some((part) => part === '' || part === '.' || part === '..'))
    throw new Error(`not a valid prefix in "${url}": "${prefix}"`);
  return { bucket, prefix };
}

/**
 * How to reach the S3 service: the standard AWS variables, read by the composition root from its
 * environment. No endpoint: AWS S3 itself (virtual-hosted addressing); an endpoint
 * (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL): an S3-compatible server (RGW, MinIO, R2), addressed
 * path-style, which they all understand. No keys: the SDK's own credential chain (profiles,
 * instance roles).
 */
export interface S3Settings {
  endpoint: string | null;
  region: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  sessionToken: string | null;
}

/** The S3 settings in an environment (AWS_ENDPOINT_URL_S3, AWS_REGION, AWS_ACCESS_KEY_ID, …). */
export function readS3Settings(env: Readonly<Record<string, string | undefined>>): S3Settings {
  return {
    endpoint: env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || null,
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
    accessKeyId: env.AWS_ACCESS_KEY_ID || null,
    secretAccessKey: env.AWS_SECRET_ACCESS_KEY || null,
    sessionToken: env.AWS_SESSION_TOKEN || null,
  };
}
