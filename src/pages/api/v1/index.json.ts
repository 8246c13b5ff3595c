import type { APIRoute } from 'astro';
import { createApiIndex } from '../../../api/v1/api-index.ts';
import { getBuildBridge } from '../../../site/build-bridge.ts';

// The endpoint list of /api/v1/, pre-rendered to dist/api/v1/index.json; the host rules and
// nginx.conf answer /api/v1/ and /api/v1 with it, and mmds serve renders the same body live.
export const GET: APIRoute = () => {
  const { snapshot } = getBuildBridge().site;
  return new Response(JSON.stringify(createApiIndex(snapshot.id, snapshot.renderedAt)), {
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
  });
};
