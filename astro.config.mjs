// Astro renders the public API and the documentation site to static files. `mmds build` passes
// the output directory and hands the snapshot over (src/site/build-bridge.ts); the static-host rules,
// compressed copies and ETags are written after Astro by src/build/.
import { defineConfig } from 'astro/config';

export default defineConfig({
  output: 'static',
  srcDir: './src',
  publicDir: './public',
  trailingSlash: 'ignore',
  // Pages become <path>/index.html, served at /<path>/ by any static host; the JSON endpoints
  // name their files themselves (api/v1/.../index.json), so their paths do not change.
  build: { format: 'directory' },
  devToolbar: { enabled: false },
  vite: {
    ssr: { external: ['@duckdb/node-api'] },
    logLevel: 'warn',
  },
});
