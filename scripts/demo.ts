/**
 * `npm start`: the whole service on the bundled sample data, in one command. data/sample holds
 * small verbatim extracts of the real ECB, CFTC, BLS and reference files (data/sample/README.md
 * gives each file's provenance). It ingests them (idempotent: a second run adds nothing),
 * publishes a snapshot, builds the public files, issues a local demo key with every scope, prints
 * example requests and serves; `mmds serve` then prints the site's addresses (home page, API
 * reference, status page, OpenAPI document) with the host and port it really listens on.
 */

import { reportConfigFailure, runCli } from '../src/cli/run-cli.ts';
import { type Config, loadConfig } from '../src/config/load-config.ts';

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

async function step(argv: string[]): Promise<void> {
  const code = await runCli(argv, context);
  if (code !== 0) {
    process.stderr.write(`demo: "mmds ${argv.join(' ')}" failed (exit ${code})\n`);
    process.exit(code);
  }
}

await step(['ingest-plan', 'data/sample/pipeline.json']);
await step(['publish']);
await step(['build']);

// The demo key: issued through the real key code, shown once, valid for a day.
const captured: Buffer[] = [];
const keyOut = new (await import('node:stream')).PassThrough();
keyOut.on('data', (chunk: Buffer) => captured.push(chunk));
const expires = `${new Date(Date.now() + 86_400_000).toISOString().slice(0, 19)}Z`;
const code = await runCli(
  [
    'keys',
    'issue',
    '--org',
    'demo',
    '--name',
    'local demo key',
    '--scopes',
    'cot:history,macro:history,observations:read',
    '--expires',
    expires,
  ],
  { ...context, stdout: keyOut, stderr: keyOut },
);
if (code !== 0) {
  process.stderr.write(`demo: could not issue the demo key: ${Buffer.concat(captured).toString()}\n`);
  process.exit(code);
}
const key = /mmds_[a-z2-7]{12}_[0-9A-Za-z]{38}/.exec(Buffer.concat(captured).toString())?.[0];
const base = `http://${config.host}:${config.port}`;
process.stderr.write(`
Demo key (all scopes, expires ${expires}; shown once, stored only as a hash):
  ${key}

Try (the sample holds real data: CFTC reports of early 2025, payroll vintages of 2025-08-01 and 2026-10-02):
  curl -s ${base}/api/v1/markets/cot/gold
  curl -s "${base}/api/v1/markets/cot/euro-fx?report_type=tff"
  curl -s -H "Authorization: Bearer ${key}" "${base}/api/v1/observations?series=bls.CES0000000001&from=2025-03&to=2025-07"
  curl -s -H "Authorization: Bearer ${key}" "${base}/api/v1/observations?series=bls.CES0000000001&from=2025-03&to=2025-07&as_of=2025-12-31T00:00:00Z"
  curl -s -H "Authorization: Bearer ${key}" "${base}/api/v1/macro/nonfarm-payrolls?format=csv"

The site (home page, API reference, status page, OpenAPI document) is listed below once the server listens.

`);
await step(['serve']);
