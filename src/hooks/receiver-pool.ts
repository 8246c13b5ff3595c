import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

/**
 * The deliverer's connections to receivers (issue 38): one keep-alive agent per receiver origin,
 * so that a release's deliveries to one receiver reuse a few open connections instead of a new
 * TCP (and TLS) handshake per attempt; and a bound on attempts in flight, per receiver host and in
 * all, so that a release to many subscriptions of one receiver does not open hundreds of
 * connections to it at once, while different receivers are posted to concurrently.
 */
export interface ReceiverPool {
  /** Runs one attempt to `url` once the bounds leave room for it. */
  run<T>(url: URL, attempt: (agent: HttpAgent) => Promise<T>): Promise<T>;
  /** Closes every kept connection (the deliverer stops). */
  close(): void;
}

/** Bounds of a pool. */
export interface ReceiverPoolOptions {
  /** Attempts in flight to one receiver host (its host name, whatever the port). */
  perHost: number;
  /** Attempts in flight in all. */
  total: number;
}

/** A counting semaphore: run() waits for a free slot. */
function createSemaphore(size: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return {
    get idle() {
      return active === 0 && waiting.length === 0;
    },
    async acquire(): Promise<void> {
      if (active < size) {
        active++;
        return;
      }
      await new Promise<void>((resume) => waiting.push(resume));
    },
    release(): void {
      const next = waiting.shift();
      if (next) next();
      else active--;
    },
  };
}

/** Creates a pool with its bounds. */
export function createReceiverPool(options: ReceiverPoolOptions): ReceiverPool {
  const total = createSemaphore(options.total);
  const hosts = new Map<string, ReturnType<typeof createSemaphore>>();
  const agents = new Map<string, HttpAgent>();
  const agentOf = (url: URL): HttpAgent => {
    let agent = agents.get(url.origin);
    if (!agent) {
      const settings = { keepAlive: true, maxSockets: options.perHost, scheduling: 'lifo' as const };
      agent = url.protocol === 'https:' ? new HttpsAgent(settings) : new HttpAgent(settings);
      agents.set(url.origin, agent);
    }
    return agent;
  };
  return {
    async run(url, attempt) {
      let host = hosts.get(url.hostname);
      if (!host) {
        host = createSemaphore(options.perHost);
        hosts.set(url.hostname, host);
      }
      // The host's slot first: attempts queued for a busy receiver do not hold slots of the total.
      await host.acquire();
      try {
        await total.acquire();
        try {
          return await attempt(agentOf(url));
        } finally {
          total.release();
        }
      } finally {
        host.release();
        if (host.idle) hosts.delete(url.hostname);
      }
    },
    close() {
      for (const agent of agents.values()) agent.destroy();
      agents.clear();
    },
  };
}
