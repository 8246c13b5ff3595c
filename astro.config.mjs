// Astro renders the public API and pages to static files. `mmds build` passes the output
// directory and hands the snapshot over (src/build/build-bridge.ts); the static-host rules,
// compressed copies and ETags are written after Astro by src/build/.
import { defineConfig } from 'astro/config';

export default defineConfig({
  output: 'static',
  srcDir: './src',
  publicDir: './public',
  trailingSlash: 'ignore',
  build: { format: 'file' },
  devToolbar: { enabled: false },
  vite: {
    ssr: { external: ['@duckdb/node-api'] },
    logLevel: 'warn',
  },
});
