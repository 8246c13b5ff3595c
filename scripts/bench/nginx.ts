/**
 * nginx for the benchmark: one worker (like the one Node process it is compared with), no
 * access log, the same http settings for both configurations measured:
 *
 * - plain: a bare `root` over dist/, the payload requested by its file path (the static-file limit);
 * - mmds:  dist/nginx.conf as `mmds build` wrote it, with its listen and upstream lines filled in.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { NGINX_LISTEN_MARK, NGINX_UPSTREAM_MARK } from '../../src/build/nginx-conf.ts';
import { type ServerProcess, startServer } from './processes.ts';

/** Finds a free loopback port (nginx cannot report the one it picked). */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function mainConfig(dir: string, server: string): string {
  // As root, nginx would run its worker as nobody, who cannot read the private work directory.
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  return `# Written by scripts/bench/nginx.ts
${user}worker_processes 1;
daemon off;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65;
    keepalive_requests 1000000;
    client_body_temp_path ${join(dir, 'client_body')};
    proxy_temp_path ${join(dir, 'proxy')};
    fastcgi_temp_path ${join(dir, 'fastcgi')};
    uwsgi_temp_path ${join(dir, 'uwsgi')};
    scgi_temp_path ${join(dir, 'scgi')};
${server}
}
`;
}

/** Starts nginx serving dist/ with a bare root (requests name the files themselves). */
export async function startPlainNginx(dir: string, distDir: string): Promise<ServerProcess> {
  const port = await findFreePort();
  const server = `    server {
        listen 127.0.0.1:${port};
        root ${distDir};
        default_type application/json;
    }`;
  return startNginxOnPort('nginx (plain)', dir, server, port);
}

/** Starts nginx with the configuration `mmds build` wrote, proxying to mmds serve at `upstreamPort`. */
export async function startMmdsNginx(
  dir: string,
  distDir: string,
  upstreamPort: number,
): Promise<ServerProcess> {
  const port = await findFreePort();
  const generated = readFileSync(join(distDir, 'nginx.conf'), 'utf8');
  const filled = generated
    .split('\n')
    .map((line) => {
      if (/^\s*listen\s/.test(line) && line.includes(NGINX_LISTEN_MARK))
        return `    listen 127.0.0.1:${port};`;
      if (/^\s*server\s/.test(line) && line.includes(NGINX_UPSTREAM_MARK))
        return `    server 127.0.0.1:${upstreamPort};`;
      return line;
    })
    .join('\n');
  if (filled === generated) throw new Error('dist/nginx.conf has no listen or upstream line to fill in');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'mmds-site.conf'), filled);
  return startNginxOnPort(
    'nginx (mmds build conf)',
    dir,
    `    include ${join(dir, 'mmds-site.conf')};`,
    port,
  );
}

/** Starts nginx and waits until the port accepts connections. */
async function startNginxOnPort(
  name: string,
  dir: string,
  server: string,
  port: number,
): Promise<ServerProcess> {
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'nginx.conf');
  writeFileSync(config, mainConfig(dir, server));
  const deadline = Date.now() + 10_000;
  const child = await startServer({
    name,
    command: 'nginx',
    args: ['-e', join(dir, 'error.log'), '-p', dir, '-c', config],
    // nginx says nothing once it listens; the port is known in advance.
    port: () => port,
    stopSignal: 'SIGQUIT',
  });
  while (Date.now() < deadline) {
    if (child.child.exitCode !== null) break;
    if (await canConnect(port)) return child;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const log = (() => {
    try {
      return readFileSync(join(dir, 'error.log'), 'utf8');
    } catch {
      return '';
    }
  })();
  await child.stop();
  throw new Error(`${name} did not start: ${child.output()} ${log}`);
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
