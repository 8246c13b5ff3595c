import type { APIRoute, GetStaticPaths } from 'astro';
import { getBuildBridge } from '../../../site/build-bridge.ts';

// Every public endpoint of the route table, pre-rendered: the build decides which files exist
// (one per endpoint, filter value and market) and renders each through the API's payload functions.
export const getStaticPaths: GetStaticPaths = () =>
  getBuildBridge()
    .files.filter((f) => f.file.startsWith('api/v1/'))
    .map((f) => ({ params: { file: f.file.slice('api/v1/'.length) } }));

export const GET: APIRoute = async ({ params }) => {
  const target = `api/v1/${params.file}`;
  const entry = getBuildBridge().files.find((f) => f.file === target);
  if (!entry) return new Response(null, { status: 404 });
  return new Response(await entry.render(), {
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
  });
};
