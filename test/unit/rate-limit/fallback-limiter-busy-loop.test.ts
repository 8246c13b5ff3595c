import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FallbackLimiter, type RateLimitEvent } from '../../../src/rate-limit/fallback-limiter.ts';
import type { RateLimiter } from '../../../src/rate-limit/rate-limiter.ts';
import type { Decision } from '../../../src/rate-limit/sliding-log.ts';

const DECISION: Decision = { allowed: true, limit: 50, remaining: 49, retry_after_s: 0, reset_s: 60 };

/**
 * A primary whose answers come over a real loopback socket from another process, as Redis's do:
 * an echo server that answers every line at once. A busy stretch of the process (a burst of requests) must not make a prompt
 * answer count as a time-out: the answer waits in the socket while the time-out's timer is due.
 */
class SocketPrimary implements RateLimiter {
  readonly #socket: Socket;
  readonly #waiting: Array<(decision: Decision) => void> = [];

  constructor(socket: Socket) {
    this.#socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      for (const _line of text.split('\n').filter(Boolean)) this.#waiting.shift()?.(DECISION);
    });
  }

  consume(): Promise<Decision> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      this.#socket.write('consume\n');
    });
  }
}

/** Keeps the event loop busy for `ms` (a burst of synchronous work). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

describe('FallbackLimiter under a busy event loop', () => {
  let echo: ChildProcess;
  let client: Socket;

  beforeAll(async () => {
    // Another process: its answers reach this one's socket while this one is busy.
    echo = spawn(
      process.execPath,
      [
        '-e',
        "const s=require('node:net').createServer((c)=>c.pipe(c));" +
          "s.listen(0,'127.0.0.1',()=>console.log(s.address().port))",
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const [chunk] = (await once(echo.stdout!, 'data')) as [Buffer];
    client = connect(Number(chunk.toString().trim()), '127.0.0.1');
    await once(client, 'connect');
  });

  afterAll(() => {
    client?.destroy();
    echo?.kill();
  });

  it('takes an answer that arrived while the loop was busy past the time-out, and stays up', async () => {
    const events: RateLimitEvent[] = [];
    const limiter = new FallbackLimiter(new SocketPrimary(client), {
      timeoutMs: 50,
      log: (event) => events.push(event),
    });
    // Warm: the connection answers.
    expect(await limiter.consume('key', 50)).toEqual(DECISION);
    for (let round = 0; round < 5; round++) {
      const decision = limiter.consume('key', 50);
      // The answer reaches the socket within a millisecond; the loop is busy four times longer
      // than the time-out, so the timer is due when the loop next runs.
      busy(200);
      expect(await decision).toEqual(DECISION);
    }
    expect(events).toEqual([]);
    expect(limiter.degraded).toBe(false);
  });
});
