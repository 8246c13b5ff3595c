import { ApiError, type ErrorCode } from '../contract/errors.ts';
import { PARAMS } from '../contract/params.ts';
import { renderError } from '../contract/render-error.ts';
import { ROUTES } from '../contract/routes.ts';

/** An error body the static host answers with (it cannot mint request ids: `static`). */
export interface StaticError {
  file: string;
  status: number;
  body: string;
}

function errorFile(name: string, code: ErrorCode, message: string): StaticError {
  const { status, body } = renderError(new ApiError(code, message), { kind: 'static' });
  return { file: `api/v1/_errors/${name}.json`, status, body: body.toString('utf8') };
}

/** The not-found body for unknown paths and slugs. */
export const NOT_FOUND = errorFile('not_found', 'not_found', 'no such endpoint, market or series');

/** The body for keyed endpoints on a static host without a proxy to `mmds serve`. */
export const KEY_REQUIRED = errorFile(
  'unauthorized',
  'unauthorized',
  'this endpoint needs an API key: send Authorization: Bearer <key> to the keyed API',
);

/**
 * The body for a public endpoint that is never pre-rendered (the change feed: its answer depends
 * on a snapshot id) on a static host without a proxy to `mmds serve`.
 */
export const SERVER_ONLY = errorFile(
  'server_only',
  'unavailable',
  'this endpoint is answered by the API server only (mmds serve); this static host does not proxy it to one',
);

/** The 400 body for an unknown value of a filter parameter. */
export function invalidFilterError(name: keyof typeof PARAMS): StaticError {
  return errorFile(
    `invalid_${name}`,
    'invalid_parameter',
    `invalid parameter "${name}": expected ${PARAMS[name].expected}`,
  );
}

/** Every static error body the host rules refer to. */
export function listStaticErrors(): StaticError[] {
  // Public per-slug routes (endpoint 15's format) answer a bad value of their parameters too.
  const filters = new Set(
    ROUTES.flatMap((route) =>
      route.prerender === 'filters' || (route.prerender === 'per-slug' && route.access.kind === 'public')
        ? route.query
        : [],
    ),
  );
  return [
    NOT_FOUND,
    KEY_REQUIRED,
    SERVER_ONLY,
    invalidFilterError('report_type'),
    ...[...filters].map(invalidFilterError),
  ];
}
