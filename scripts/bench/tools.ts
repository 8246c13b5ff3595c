/**
 * What the benchmark needs on the machine (wrk and nginx from Debian's packages; autocannon is
 * not needed: wrk and a closed-loop client cover every measurement), and what it records about
 * the machine and the versions measured.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { REPO_ROOT, tryCommand } from './processes.ts';

/** Installs wrk and nginx with apt-get when they are missing (root, or sudo without a password). */
export function ensureTools(log: (line: string) => void): void {
  const missing = ['wrk', 'nginx'].filter((tool) => tryCommand('sh', ['-c', `command -v ${tool}`]) === null);
  if (missing.length === 0) return;
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const apt = (args: string[]) => {
    const [command, ...rest] = [...sudo, 'apt-get', ...args];
    return spawnSync(command!, rest, {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  };
  log(`installing ${missing.join(', ')} with apt-get…`);
  if (apt(['install', '-y', ...missing]).status !== 0) {
    apt(['update']);
    if (apt(['install', '-y', ...missing]).status !== 0) {
      throw new Error(
        `could not install ${missing.join(', ')}: install them (apt-get install -y ${missing.join(' ')})`,
      );
    }
  }
}

/** The machine the figures were measured on. */
export interface MachineInfo {
  nproc: number;
  cpu_model: string;
  memory_gb: number;
  os: string;
  load_average_at_start: number[];
}

/** Reads the machine description. */
export function readMachine(): MachineInfo {
  let os = 'unknown';
  try {
    os = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? os;
  } catch {}
  const nproc = Number(tryCommand('nproc', [])) || cpus().length;
  return {
    nproc,
    cpu_model: cpus()[0]?.model ?? 'unknown',
    memory_gb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os,
    load_average_at_start: loadavg().map((n) => Math.round(n * 100) / 100),
  };
}

/** Versions of what was measured. */
export function readVersions(): Record<string, string> {
  const installed = (name: string) => {
    try {
      return (
        JSON.parse(readFileSync(`${REPO_ROOT}node_modules/${name}/package.json`, 'utf8')) as {
          version: string;
        }
      ).version;
    } catch {
      return 'missing';
    }
  };
  return {
    node: process.version,
    duckdb: installed('@duckdb/node-api'),
    h3: installed('h3'),
    srvx: installed('srvx'),
    nginx: (tryCommand('nginx', ['-v']) ?? 'missing').replace(/^nginx version:\s*/, ''),
    wrk: (tryCommand('sh', ['-c', 'wrk -v 2>&1 | head -1']) ?? 'missing').split(' [')[0] ?? 'missing',
  };
}
