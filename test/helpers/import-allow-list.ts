// The imports of src/ that break the layer order or close a loop today (issue 34): the guard rail
// (test/unit/import-layers.test.ts) lets these through and nothing else. The list only shrinks: an
// entry whose import is gone fails the test until it is deleted here. Read a `cycle` entry as "this
// import is part of a loop"; breaking the loop removes every entry of it.
export const ALLOWED_IMPORT_VIOLATIONS: readonly string[] = [
  'cycle src/mcp/resources.ts -> src/mcp/server.ts',
  'cycle src/mcp/server.ts -> src/mcp/subscriptions.ts',
  'cycle src/mcp/subscriptions.ts -> src/mcp/resources.ts',
  'cycle src/server/handler-deps.ts -> src/server/keyed-fast-path.ts',
  'layer src/mcp/server.ts -> src/server/authorise.ts',
  'layer src/mcp/server.ts -> src/server/handler-deps.ts',
  'layer src/mcp/subscriptions.ts -> src/server/authorise.ts',
  'layer src/mcp/subscriptions.ts -> src/server/handler-deps.ts',
  'layer src/pages/404.astro -> src/build/build-bridge.ts',
  'layer src/pages/api/v1/[...file].ts -> src/build/build-bridge.ts',
  'layer src/pages/api/v1/index.json.ts -> src/build/build-bridge.ts',
  'layer src/pages/bulk/index.astro -> src/build/build-bridge.ts',
  'layer src/pages/docs/[...page].astro -> src/build/build-bridge.ts',
  'layer src/pages/docs/api/index.astro -> src/build/build-bridge.ts',
  'layer src/pages/fx/index.astro -> src/build/build-bridge.ts',
  'layer src/pages/index.astro -> src/build/build-bridge.ts',
  'layer src/pages/macro/[slug].astro -> src/build/build-bridge.ts',
  'layer src/pages/macro/index.astro -> src/build/build-bridge.ts',
  'layer src/pages/markets/[slug].astro -> src/build/build-bridge.ts',
  'layer src/pages/markets/index.astro -> src/build/build-bridge.ts',
  'layer src/pages/releases.astro -> src/build/build-bridge.ts',
  'layer src/pages/sectors/index.astro -> src/build/build-bridge.ts',
  'layer src/pages/sources/index.astro -> src/build/build-bridge.ts',
  'layer src/pages/status/index.astro -> src/build/build-bridge.ts',
];
