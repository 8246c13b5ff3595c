import { loadConfig } from '../config/load-config.ts';
import { reportConfigFailure, runCli } from './run-cli.ts';

// Composition root of the `mmds` executable: the only place the CLI reads the environment.
// Astro would otherwise try to send usage telemetry from `mmds build`.
process.env.ASTRO_TELEMETRY_DISABLED ??= '1';
let config: ReturnType<typeof loadConfig>;
try {
  config = loadConfig(process.env, process.cwd());
} catch (error) {
  process.exitCode = reportConfigFailure(error, process.argv.slice(2), process);
  // Let stdout drain (a --json document to a pipe) rather than process.exit() cutting it off.
  await new Promise((resolve) => process.stdout.write('', resolve));
  process.exit();
}
process.exitCode = await runCli(process.argv.slice(2), {
  config,
  now: () => new Date(),
  stdout: process.stdout,
  stderr: process.stderr,
  interactive: Boolean(process.stderr.isTTY),
});
