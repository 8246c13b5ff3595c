import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { EventFeed, ReleaseEvent } from '../../src/events/event.ts';

/** One request a receiver got. */
export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** performance.now() when it arrived. */
  at: number;
}

/** What a receiver answers: a status and headers; status 0 never answers (a hung receiver). */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
}

/**
 * A real HTTP receiver on a random loopback port. Each path answers from its script (one
 * answer per request, in order) and 204 once the script is used up.
 */
export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** The requests to one path. */
  at(path: string): ReceivedWebhook[];
  script(path: string, answers: Answer[]): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const scripts = new Map<string, Answer[]>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({
        path,
        headers: flatten(request.headers),
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      });
      const answer = scripts.get(path)?.shift() ?? { status: 204 };
      if (answer.status === 0) return;
      response.writeHead(answer.status, answer.headers);
      response.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    received,
    at: (path) => received.filter((entry) => entry.path === path),
    script: (path, answers) => scripts.set(path, [...answers]),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/**
 * An event log held in an array (test data the test appends to, in order), read as the
 * deliverer reads the real one: the events after an id, or after `<snapshot id>:0` (a
 * snapshot's start).
 */
export function arrayFeed(events: ReleaseEvent[]): EventFeed {
  return {
    async after(after, limit) {
      let start = after === null ? 0 : events.findIndex((event) => event.id === after) + 1;
      if (after?.endsWith(':0')) start = events.findIndex((event) => `${event.snapshot}:0` === after);
      if (start < 0 || (after !== null && start === 0 && !after.endsWith(':0')))
        throw new Error(`event ${after} is not in the log`);
      return events.slice(start, start + limit);
    },
  };
}

/** Polls until `condition` holds, or fails after `timeoutMs` naming what was awaited. */
export async function waitUntil(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}
