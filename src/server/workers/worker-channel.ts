/**
 * Calls from a worker of `mmds serve --workers N` to its primary over the cluster's IPC channel:
 * the rate-limit counters (the primary holds the one MemoryLimiter every worker counts in) and,
 * under `--from`, the bucket follower's answers. Calls made in one event-loop turn travel as one
 * message and their answers come back as one, so a request costs a fraction of an IPC round trip
 * besides its wait.
 */

/** Every message between the primary and a worker carries `mmds` (other modules may use the channel). */
export type ChannelMessage =
  | { mmds: 'calls'; calls: Array<[id: number, method: string, args: unknown[]]> }
  | { mmds: 'answers'; answers: Array<[id: number, ok: boolean, value: unknown]> };

/** What the primary answers, by method: a value or a promise of one; a throw is the caller's rejection. */
export type CallHandlers = Readonly<Record<string, (...args: never[]) => unknown>>;

/** The worker's side: `call` sends, `receive` settles what the primary answered. */
export class PrimaryChannel {
  readonly #send: (message: ChannelMessage) => void;
  readonly #pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  #queue: Array<[number, string, unknown[]]> = [];
  #nextId = 1;
  #closed: string | null = null;

  constructor(send: (message: ChannelMessage) => void) {
    this.#send = send;
  }

  /** Calls `method` in the primary; rejects when it threw or the channel is closed. */
  call(method: string, args: unknown[]): Promise<unknown> {
    if (this.#closed !== null) return Promise.reject(new Error(this.#closed));
    const id = this.#nextId++;
    if (this.#queue.length === 0) setImmediate(() => this.#flush());
    this.#queue.push([id, method, args]);
    return new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject }));
  }

  /** Settles the calls a message answers; false when it is not an answer. */
  receive(message: unknown): boolean {
    if (!isChannelMessage(message) || message.mmds !== 'answers') return false;
    for (const [id, ok, value] of message.answers) {
      const waiting = this.#pending.get(id);
      if (!waiting) continue;
      this.#pending.delete(id);
      if (ok) waiting.resolve(value);
      else waiting.reject(new Error(String(value)));
    }
    return true;
  }

  /** Rejects every call waiting and every later one (the primary is gone). */
  close(reason: string): void {
    this.#closed = reason;
    this.#queue = [];
    for (const waiting of this.#pending.values()) waiting.reject(new Error(reason));
    this.#pending.clear();
  }

  #flush(): void {
    if (this.#queue.length === 0) return;
    const calls = this.#queue;
    this.#queue = [];
    try {
      this.#send({ mmds: 'calls', calls });
    } catch (error) {
      for (const [id] of calls) {
        this.#pending.get(id)?.reject(error as Error);
        this.#pending.delete(id);
      }
    }
  }
}

/**
 * The primary's side: answers the calls of one message with `handlers`. The answers known at once
 * (the limiter's) go back together in one message; a call answered later (a promise) in its own.
 * Returns false when the message holds no calls.
 */
export function answerCalls(
  message: unknown,
  handlers: CallHandlers,
  reply: (message: ChannelMessage) => void,
): boolean {
  if (!isChannelMessage(message) || message.mmds !== 'calls') return false;
  const now: Array<[number, boolean, unknown]> = [];
  for (const [id, method, args] of message.calls) {
    const handler = handlers[method] as ((...args: unknown[]) => unknown) | undefined;
    if (!handler) {
      now.push([id, false, `no method ${method} in the primary`]);
      continue;
    }
    let result: unknown;
    try {
      result = handler(...args);
    } catch (error) {
      now.push([id, false, (error as Error).message]);
      continue;
    }
    if (result instanceof Promise) {
      result.then(
        (value) => sendSafely(reply, { mmds: 'answers', answers: [[id, true, value]] }),
        (error: Error) => sendSafely(reply, { mmds: 'answers', answers: [[id, false, error.message]] }),
      );
    } else {
      now.push([id, true, result]);
    }
  }
  if (now.length > 0) sendSafely(reply, { mmds: 'answers', answers: now });
  return true;
}

/** A worker that exited meanwhile cannot be answered: its calls died with it. */
function sendSafely(reply: (message: ChannelMessage) => void, message: ChannelMessage): void {
  try {
    reply(message);
  } catch {
    // The worker is gone.
  }
}

/** Whether a value is one of the channel's messages. */
export function isChannelMessage(message: unknown): message is ChannelMessage {
  if (typeof message !== 'object' || message === null) return false;
  const kind = (message as { mmds?: unknown }).mmds;
  return kind === 'calls' || kind === 'answers';
}
