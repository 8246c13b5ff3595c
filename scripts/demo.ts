/**
 * `npm start`: the whole service on the bundled sample data, in one command. data/sample holds
 * small verbatim extracts of the real ECB, CFTC, BLS and reference files (data/sample/README.md
 * gives each file's provenance). It ingests them (idempotent: a second run adds nothing),
 * publishes a snapshot, builds the site's pages (`mmds build --site-only`, seconds) and starts the
 * full build of the public files in a child process (the server answers the public routes from
 * the snapshot until it is in place, the same answers, and picks it up when it is), issues a local demo key with every scope (revoking
 * the one of the previous start: one live demo key per data directory; 1,000 requests a minute,
 * not the default 60), prints example requests
 * and serves; `mmds serve` then prints the site's addresses (home page, API
 * reference, status page, OpenAPI document) with the host and port it really listens on.
 * The terminal shows only what is written for a person: the server's JSON log lines (one per
 * request and event) go to <data dir>/logs/serve.ndjson, whose path is printed. Ctrl+C stops the
 * server gracefully and the background build with it, and says so.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { reportConfigFailure, runCli } from '../src/cli/run-cli.ts';
import { type Config, loadConfig } from '../src/config/load-config.ts';
import { DEMO_REQUESTS, renewDemoKey, toCurl } from './demo-key.ts';

process.env.ASTRO_TELEMETRY_DISABLED ??= '1';
let config: Readonly<Config>;
try {
  config = loadConfig(process.env, process.cwd());
} catch (error) {
  process.exit(reportConfigFailure(error, [], process));
}
const context = {
  config,
  now: () => new Date(),
  stdout: process.stdout,
  stderr: process.stderr,
  interactive: Boolean(process.stderr.isTTY),
};

// Ctrl+C (SIGINT to the terminal's process group: this script and the build) or SIGTERM. Once
// `mmds serve` runs, it stops itself gracefully on the same signal; before, the demo stops here.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    stopping = true;
    if (process.listenerCount(signal) > 1) return;
    process.stderr.write(`demo: stopped (${signal}) before the server started\n`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });

async function step(argv: string[], stdout: Writable = process.stdout): Promise<void> {
  const code = await runCli(argv, { ...context, stdout });
  if (code !== 0) {
    process.stderr.write(`demo: "mmds ${argv.join(' ')}" failed (exit ${code})\n`);
    process.exit(code);
  }
}

await step(['ingest-plan', 'data/sample/pipeline.json']);
await step(['publish']);
await step(['build', '--site-only']);
startFullBuild();

// The demo key: every scope, a day long, through the real key code; the earlier starts' demo
// keys of this data directory are revoked, so one stays live (scripts/demo-key.ts).
const demo = await renewDemoKey(config, new Date()).catch((error: unknown) => {
  process.stderr.write(`demo: could not issue the demo key: ${(error as Error).message}\n`);
  process.exit(1);
});
const key = demo.plaintext;
const serverLog = join(config.dataDir, 'logs', 'serve.ndjson');
mkdirSync(join(config.dataDir, 'logs'), { recursive: true });
const base = `http://${config.host}:${config.port}`;
const replaced =
  demo.revoked.length > 0
    ? ` It replaces the demo key of the last start (${demo.revoked.join(', ')}, now revoked).`
    : '';
process.stderr.write(`
Demo key (every scope: ${demo.record.scopes.join(', ')}; ${demo.record.rate_limit.toLocaleString('en-US')} requests a minute; expires ${demo.record.expires_at}; shown once, stored only as a hash):
  ${key}
A new one at every start.${replaced}

Try (the sample holds real data: CFTC reports of early 2021, 2025 and 2026 and three years of TFF history 2013-2016 for VIX, E-mini Nasdaq-100, British pound and 5-year note futures, payroll vintages of 2025-08-01 and 2026-10-02):
${DEMO_REQUESTS.map((request) => `  # ${request.says}\n  ${toCurl(request, base, key)}`).join('\n')}

Watch release events as they are published (Server-Sent Events, docs/api/events.md; run \`npm run mmds -- update\` or \`npm run mmds -- publish\` in a second terminal to make some appear; add the key's header for licensed sources):
  curl -N -H "Accept: text/event-stream" "${base}/api/v1/events"

The server's log (one JSON line per request and event) goes to a file, not here; follow it with:
  tail -f ${serverLog}

The site (home page, API reference, status page, OpenAPI document) is listed below once the server listens. Ctrl+C stops it.

`);
await step(['serve'], createWriteStream(serverLog, { flags: 'a' }));

/**
 * The full `mmds build` as a child process, so that its rendering never holds up the server's
 * event loop; on a second start it finds dist/ current and ends at once. Stopped with the demo.
 */
function startFullBuild(): ChildProcess {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL('../bin/mmds.js', import.meta.url)), 'build'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors = (errors + chunk.toString()).slice(-2000);
  });
  child.stdout?.resume();
  child.once('exit', (code, signal) => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stderr.write(
      code === 0
        ? `demo: full build done in ${seconds} s: every public file is static now\n`
        : signal !== null || stopping
          ? `demo: the full build was stopped after ${seconds} s${signal ? ` (${signal})` : ''}, with the demo; the next npm start builds it again\n`
          : `demo: the full build failed (exit ${code}); the server keeps answering from the snapshot: ${errors.trim().split('\n').at(-1) ?? ''}\n`,
    );
  });
  process.once('exit', () => child.kill());
  return child;
}
