/**
 * The control messages between the primary of `mmds serve --workers N` and its workers (besides
 * the calls of worker-channel.ts). Each carries `mmds`, naming it.
 */

/** Primary to worker: start serving with this configuration. */
export interface StartMessage {
  mmds: 'start';
  /** The worker's number, 1 to N (a replacement takes the number of the one it replaces). */
  worker: number;
  /** The configuration the CLI resolved (loadConfig plus the flags), as JSON. */
  config: unknown;
  /** Which answers of the bucket follower (`serve --from`) the primary gives. */
  hooks: { arrivalOf: boolean; onDamaged: boolean; replica: boolean };
}

/** Primary to worker. */
export type PrimaryMessage =
  | StartMessage
  /** Stop gracefully: requests in flight finish, then the worker exits. */
  | { mmds: 'stop' }
  /** The follower refused a snapshot as damaged (requests waiting for it answer at once). */
  | { mmds: 'damaged'; snapshot: string; reason: string };

/** Worker to primary. */
export type WorkerMessage =
  /** Log lines, whole, to write on stdout. */
  | { mmds: 'lines'; text: string }
  /** Listening. */
  | { mmds: 'ready'; url: string; pid: number }
  /** It could not start (a port already taken, say): the error as the CLI would report it. */
  | {
      mmds: 'failed';
      error: { message: string; code?: string; syscall?: string; address?: string; port?: number };
    }
  /** An event the primary acts on (a snapshot switch wakes the webhook deliverer). */
  | { mmds: 'event'; entry: Record<string, unknown> };
