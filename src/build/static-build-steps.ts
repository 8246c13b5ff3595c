/** Small steps of `mmds build` (run-static-build.ts): the routes of the rendered requests, progress, the summary. */
import type { StaticRequest } from '../api/v1/static-requests.ts';
import { OPENAPI_MAX_AGE, OPENAPI_PATH } from '../contract/openapi.ts';
import { CSV_PATH_SUFFIX } from '../contract/routes.ts';
import type { BridgeFile } from '../site/build-bridge.ts';
import { type BuildManifest, publicCacheControl, type StaticRoute } from './build-manifest.ts';
import type { StaticBuildOptions, StaticBuildResult } from './static-build-types.ts';

/** The OpenAPI document, a static file beside the payloads (not a route of the table; no host rewrite needed). */
export const OPENAPI_FILE = OPENAPI_PATH.slice(1);
export const OPENAPI_ROUTE: StaticRoute = {
  path: OPENAPI_PATH,
  query: {},
  file: OPENAPI_FILE,
  status: 200,
  cache_control: publicCacheControl(OPENAPI_MAX_AGE),
  route_id: null,
};

/** Reports each file Astro renders, so that a terminal can draw a bar, and hands its body on. */
export function countRenders(
  files: readonly BridgeFile[],
  progress: StaticBuildOptions['progress'],
  rendered: (file: string, body: string) => void,
): BridgeFile[] {
  let done = 0;
  return files.map((file) => ({
    ...file,
    render: async () => {
      const body = await file.render();
      rendered(file.file, body);
      done += 1;
      progress?.(`build: rendering ${files.length} files with Astro…`, { done, total: files.length });
      return body;
    },
  }));
}

export function listStaticRoutes(requests: readonly StaticRequest[]): StaticRoute[] {
  return requests.flatMap((request) => {
    const path = request.route.path.replace(':slug', request.slug ?? '');
    const base = {
      path,
      file: request.file,
      status: 200,
      cache_control: publicCacheControl(request.route.maxAge),
      route_id: request.route.id,
    };
    return [
      { ...base, query: { ...request.query } },
      ...request.aliases.map((alias) => ({ ...base, query: { ...alias } })),
      // A pre-rendered format=csv request is also its route's CSV path (src/contract/routes.ts).
      ...(request.query.format === 'csv' ? [{ ...base, path: `${path}${CSV_PATH_SUFFIX}`, query: {} }] : []),
    ] as StaticRoute[];
  });
}

export function summarise(
  manifest: BuildManifest,
  status: StaticBuildResult['status'],
  started: number,
): StaticBuildResult {
  return {
    status,
    snapshot: manifest.snapshot,
    files: manifest.files.length,
    bytes: manifest.files.reduce((sum, f) => sum + f.bytes, 0),
    routes: manifest.routes.length,
    seconds: Math.round((performance.now() - started) / 10) / 100,
  };
}
