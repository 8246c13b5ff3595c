import type { ErrorCode } from './errors.ts';

/** `meta` fields every successful response carries (CONTRACT section 1). */
export interface Meta {
  api_version: 'v1';
  snapshot: string;
  generated_at: string;
  count?: number;
  [field: string]: unknown;
}

/** A successful response body. */
export interface Success<T = unknown> {
  data: T;
  meta: Meta;
}

/** An error response body. */
export interface Failure {
  error: { code: ErrorCode; message: string; request_id: string };
}

/** What a payload function returns: data and the endpoint's own meta fields. */
export interface Payload<T = unknown> {
  data: T;
  meta?: Record<string, unknown>;
}

/** Builds a success body; the static build and the server both go through it. */
export function success<T>(payload: Payload<T>, snapshot: string, generatedAt: string): Success<T> {
  const count = Array.isArray(payload.data) ? payload.data.length : undefined;
  return { data: payload.data, meta: successMeta(payload.meta, count, snapshot, generatedAt) };
}

/** The `meta` of a success body whose `data` has `count` rows (undefined: not a list). */
export function successMeta(
  own: Record<string, unknown> | undefined,
  count: number | undefined,
  snapshot: string,
  generatedAt: string,
): Meta {
  const meta: Meta = { api_version: 'v1', snapshot, generated_at: generatedAt };
  if (count !== undefined) meta.count = count;
  return { ...meta, ...own };
}

/** Builds an error body. */
export function failure(code: ErrorCode, message: string, requestId: string): Failure {
  return { error: { code, message, request_id: requestId } };
}
