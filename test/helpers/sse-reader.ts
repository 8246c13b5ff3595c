/**
 * A stream of /api/v1/events read over fetch, each chunk stamped with when it arrived, so that a
 * test can say what came after an instant (a revocation returning) and when the server ended it.
 */

/** One chunk of the stream and the `performance.now()` it arrived at. */
export interface StampedChunk {
  at: number;
  text: string;
}

/** An open stream being read to its end. */
export interface SseReading {
  status: number;
  chunks: StampedChunk[];
  /** Everything received so far. */
  text(): string;
  /** Resolves once `text()` contains `needle`. */
  until(needle: string): Promise<void>;
  /** Resolves with `performance.now()` when the server ended the stream (rejects on a time-out). */
  ended: Promise<number>;
  close(): void;
}

/** Opens a stream (with a key when `token` is given) and reads it in the background until it ends. */
export async function readEventStream(
  url: string,
  token: string | null,
  timeoutMs = 30_000,
): Promise<SseReading> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`stream still open after ${timeoutMs} ms`)),
    timeoutMs,
  );
  const response = await fetch(url, {
    headers: { Accept: 'text/event-stream', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    signal: controller.signal,
  });
  const chunks: StampedChunk[] = [];
  const waiters: Array<() => void> = [];
  const text = () => chunks.map((chunk) => chunk.text).join('');
  const ended = (async () => {
    if (response.status !== 200) {
      await response.arrayBuffer();
      return performance.now();
    }
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return performance.now();
        chunks.push({ at: performance.now(), text: decoder.decode(value, { stream: true }) });
        for (const waiter of waiters.splice(0)) waiter();
      }
    } finally {
      clearTimeout(timer);
    }
  })();
  ended.catch(() => {});
  return {
    status: response.status,
    chunks,
    text,
    until: (needle) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (text().includes(needle)) return resolve();
          waiters.push(check);
        };
        ended.then(() => {
          if (!text().includes(needle)) reject(new Error(`stream ended without ${JSON.stringify(needle)}`));
        }, reject);
        check();
      }),
    ended,
    close: () => {
      clearTimeout(timer);
      controller.abort();
    },
  };
}

/** The ids of the events in a stream's text (`id:` lines). */
export function eventIdsOf(text: string): string[] {
  return [...text.matchAll(/^id: (.+)$/gm)].map((match) => match[1]!);
}
