import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createConnection, createServer } from 'node:net';

/** A redis-server child process on a free loopback port. */
export interface RedisServer {
  url: string;
  port: number;
  /** Kills the process and waits until it has exited. */
  stop(): Promise<void>;
  /**
   * Starts it again on the same port and waits for PING: empty, unless started with `dir`, then
   * with every write acknowledged before the kill (appendonly, fsync per write).
   */
  restart(): Promise<void>;
}

const INSTALL_HINT =
  'redis-server is not installed: install it with `apt-get update && apt-get install -y redis-server` ' +
  '(Debian/Ubuntu) or put it on PATH; the Redis tests run against a real server';

/**
 * Starts a throwaway redis-server on a random free port and waits until it answers PING; without
 * persistence, or with `dir`, an append-only file there fsynced on every write, so that a
 * SIGKILL loses nothing it acknowledged (a chaos test restarts it under load).
 */
export async function startRedis(options: { dir?: string } = {}): Promise<RedisServer> {
  const persistence = options.dir
    ? ['--dir', options.dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', '']
    : ['--save', '', '--appendonly', 'no'];
  // Another process may take the port between the probe and redis-server's bind: try a few.
  let port = 0;
  let child: ChildProcess | undefined;
  for (let attempt = 1; !child; attempt++) {
    port = await findFreePort();
    try {
      child = await spawnRedis(port, persistence);
    } catch (error) {
      if (attempt >= 3 || !(error instanceof Error) || !error.message.includes('in use')) throw error;
    }
  }
  let current = child;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () => killProcess(current),
    restart: async () => {
      await killProcess(current);
      current = await spawnRedis(port, persistence);
    },
  };
}

/** Returns a TCP port that was free a moment ago (the OS picks it). */
export async function findFreePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (address === null || typeof address === 'string') throw new Error('no TCP port assigned');
  return address.port;
}

async function spawnRedis(port: number, persistence: readonly string[]): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', ...persistence], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new Error(INSTALL_HINT) : error),
    );
    child.once('exit', (code, signal) =>
      reject(new Error(`redis-server exited (${code ?? signal}) before answering PING:\n${output}`)),
    );
  });
  failed.catch(() => {});
  await Promise.race([waitForPing(port, 30_000), failed]);
  return child;
}

async function waitForPing(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await ping(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

async function killProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
