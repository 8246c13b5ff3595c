import { loadConfig } from '../config/load-config.ts';
import { runCli } from './run-cli.ts';

// Composition root of the `mmds` executable: the only place the CLI reads the environment.
// Astro would otherwise try to send usage telemetry from `mmds build`.
process.env.ASTRO_TELEMETRY_DISABLED ??= '1';
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env, process.cwd());
} catch (error) {
  process.stderr.write(`mmds: configuration: ${(error as Error).message}\n`);
  process.exit(78);
}
process.exitCode = await runCli(process.argv.slice(2), {
  config,
  now: () => new Date(),
  stdout: process.stdout,
  stderr: process.stderr,
  interactive: Boolean(process.stderr.isTTY),
});
