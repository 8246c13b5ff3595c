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
  const meta: Meta = { api_version: 'v1', snapshot, generated_at: generatedAt };
  if (Array.isArray(payload.data)) meta.count = payload.data.length;
  return { data: payload.data, meta: { ...meta, ...payload.meta } };
}

/** Builds an error body. */
export function failure(code: ErrorCode, message: string, requestId: string): Failure {
  return { error: { code, message, request_id: requestId } };
}
