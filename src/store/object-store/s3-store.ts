import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  type GetObjectCommandOutput,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { MmdsError } from '../../lib/errors.ts';
import {
  type ObjectStore,
  ObjectStoreError,
  type ObjectStoreFailureKind,
  type ObjectStoreLocation,
  type S3Settings,
} from './object-store.ts';

/** An ObjectStore over the AWS SDK v3 S3 client. */
export function openS3Store(location: ObjectStoreLocation, settings: S3Settings): ObjectStore {
  const client = new S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
    ...(settings.accessKeyId && settings.secretAccessKey
      ? {
          credentials: {
            accessKeyId: settings.accessKeyId,
            secretAccessKey: settings.secretAccessKey,
            ...(settings.sessionToken ? { sessionToken: settings.sessionToken } : {}),
          },
        }
      : {}),
    // The SDK's default CRC32 trailers (aws-chunked uploads) are not understood by every
    // S3-compatible server (RGW 16 among them); integrity is our own sha256 against the manifest.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const { bucket } = location;
  const url = `s3://${bucket}${location.prefix ? `/${location.prefix}` : ''}`;
  const full = (key: string) => (location.prefix ? `${location.prefix}/${key}` : key);
  const relative = (key: string) => (location.prefix ? key.slice(location.prefix.length + 1) : key);
  /** Runs one request; a failure becomes one line naming the object and what the server said. */
  const call = async <T>(what: string, key: string, request: () => Promise<T>): Promise<T> => {
    try {
      return await request();
    } catch (error) {
      const failure = classifyS3Error(error, settings.endpoint ?? 'AWS S3', bucket);
      throw new ObjectStoreError(`${what} ${url}/${key} failed: ${failure.say}`, {
        cause: error,
        kind: failure.kind,
      });
    }
  };
  return {
    url,
    get: (key) =>
      call('GET', key, async () => {
        try {
          const reply = await client.send(new GetObjectCommand({ Bucket: bucket, Key: full(key) }));
          return Buffer.from(await reply.Body!.transformToByteArray());
        } catch (error) {
          if (isMissingObject(error)) return null;
          throw error;
        }
      }),
    getToFile: (key, file) =>
      call('GET', key, async () => {
        let reply: GetObjectCommandOutput;
        try {
          reply = await client.send(new GetObjectCommand({ Bucket: bucket, Key: full(key) }));
        } catch (error) {
          if (isMissingObject(error)) return null;
          throw error;
        }
        const hash = createHash('sha256');
        let bytes = 0;
        const body = reply.Body as Readable;
        await pipeline(
          body,
          async function* (chunks: AsyncIterable<Buffer>) {
            for await (const chunk of chunks) {
              hash.update(chunk);
              bytes += chunk.length;
              yield chunk;
            }
          },
          createWriteStream(file),
        );
        return { sha256: hash.digest('hex'), bytes };
      }),
    head: (key) =>
      call('HEAD', key, async () => {
        try {
          const reply = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: full(key) }));
          return {
            size: reply.ContentLength ?? 0,
            ...(reply.ContentType ? { contentType: reply.ContentType } : {}),
            ...(reply.CacheControl ? { cacheControl: reply.CacheControl } : {}),
            metadata: reply.Metadata ?? {},
          };
        } catch (error) {
          if (statusOf(error) === 404) return null;
          throw error;
        }
      }),
    list: (keyPrefix, startAfter) =>
      call('LIST', keyPrefix, async () => {
        const keys: string[] = [];
        let token: string | undefined;
        do {
          const reply = await client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              Prefix: full(keyPrefix),
              ContinuationToken: token,
              ...(startAfter !== undefined && token === undefined ? { StartAfter: full(startAfter) } : {}),
            }),
          );
          for (const entry of reply.Contents ?? []) if (entry.Key) keys.push(relative(entry.Key));
          token = reply.IsTruncated ? reply.NextContinuationToken : undefined;
        } while (token);
        return keys;
      }),
    put: (key, body) =>
      call('PUT', key, async () => {
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: full(key), Body: body }));
      }),
    putFile: (key, file, headers) =>
      call('PUT', key, async () => {
        await client.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: full(key),
            Body: createReadStream(file),
            ContentLength: statSync(file).size,
            ...(headers?.contentType ? { ContentType: headers.contentType } : {}),
            ...(headers?.cacheControl ? { CacheControl: headers.cacheControl } : {}),
            ...(headers?.metadata ? { Metadata: headers.metadata } : {}),
          }),
        );
      }),
    putIfAbsent: (key, body) =>
      call('PUT', key, async () => {
        try {
          await client.send(
            new PutObjectCommand({ Bucket: bucket, Key: full(key), Body: body, IfNoneMatch: '*' }),
          );
          return true;
        } catch (error) {
          // 412: the object exists; 409: another conditional write of the key is in flight (AWS).
          if (statusOf(error) === 412 || statusOf(error) === 409) return false;
          // A server that cannot honour If-None-Match would let two publishers both commit.
          if (statusOf(error) === 501 || errorName(error) === 'NotImplemented')
            throw new NoConditionalWrites(error);
          throw error;
        }
      }),
    delete: (key) =>
      call('DELETE', key, async () => {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: full(key) }));
      }),
    close: () => client.destroy(),
  };
}

/** The server refused `If-None-Match: *`: told apart from other failures by classifyS3Error. */
class NoConditionalWrites extends MmdsError {
  constructor(cause: unknown) {
    super('bucket_no_conditional_writes', 'conditional writes not implemented', { cause });
    this.name = 'NoConditionalWrites';
  }
}

/** Socket and DNS codes that mean the endpoint did not answer at all. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** Error names S3 gives a key it does not know or a signature that does not match. */
const BAD_KEY_NAMES = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch']);

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

function errorCode(error: unknown): string | undefined {
  const own = (error as { code?: unknown })?.code;
  if (typeof own === 'string') return own;
  const cause = (error as { cause?: unknown })?.cause;
  return cause === undefined || cause === error ? undefined : errorCode(cause);
}

/**
 * Sorts an SDK failure into the kinds an operator acts on, each with one line saying what to do;
 * anything else keeps the server's status and error name, which is what a bug report needs.
 */
function classifyS3Error(
  error: unknown,
  endpoint: string,
  bucket: string,
): { kind: ObjectStoreFailureKind; say: string } {
  if (error instanceof NoConditionalWrites)
    return {
      kind: 'no_conditional_writes',
      say:
        `the object store at ${endpoint} does not support conditional writes (PUT with If-None-Match: *), ` +
        'which commits to the log need: use an S3 service that does (AWS S3 and Ceph RGW do)',
    };
  const code = errorCode(error);
  if (code !== undefined && UNREACHABLE_CODES.has(code))
    return {
      kind: 'unreachable',
      say: `the object store at ${endpoint} is unreachable (${code}): start it, or fix AWS_ENDPOINT_URL_S3`,
    };
  if (errorName(error) === 'CredentialsProviderError')
    return {
      kind: 'credentials',
      say: 'no S3 credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)',
    };
  const name = errorName(error) ?? '';
  if (name === 'NoSuchBucket')
    return {
      kind: 'no_bucket',
      say: `the bucket "${bucket}" does not exist at ${endpoint}: create it, or fix the s3:// location`,
    };
  if (statusOf(error) === 403 || name === 'AccessDenied' || BAD_KEY_NAMES.has(name))
    return {
      kind: 'denied',
      say:
        `access denied (${`${statusOf(error) ?? ''} ${name}`.trim()}): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, ` +
        `and that the key may read and write the bucket "${bucket}"`,
    };
  return { kind: 'failed', say: describeS3Error(error) };
}

/** A 404 for the key, not for the bucket: a missing bucket must not read as an empty store. */
function isMissingObject(error: unknown): boolean {
  return statusOf(error) === 404 && errorName(error) !== 'NoSuchBucket';
}

function statusOf(error: unknown): number | undefined {
  return error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
}

/** "403 AccessDenied", "NoSuchBucket", "connect ECONNREFUSED 127.0.0.1:9000". */
function describeS3Error(error: unknown): string {
  if (error instanceof S3ServiceException) {
    const status = error.$metadata.httpStatusCode;
    const text =
      error.message && error.message !== error.name && error.message !== 'UnknownError'
        ? `: ${error.message}`
        : '';
    return `${status ?? ''} ${error.name}${text}`.trim();
  }
  const cause = (error as { cause?: unknown })?.cause;
  const message = error instanceof Error ? error.message : String(error);
  return cause instanceof Error && !message.includes(cause.message)
    ? `${message} (${cause.message})`
    : message;
}
