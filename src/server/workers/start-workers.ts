/**
 * The primary of `mmds serve --workers N`: forks N worker processes (node:cluster, which hands
 * the connections of the one port to them in turn) and holds what must be exact across them: the
 * rate-limit counters (one MemoryLimiter; with Redis it counts only while Redis is down, as the
 * fallback each worker would otherwise keep for itself). It writes the workers' log lines, passes
 * the bucket follower's answers on (`--from`), replaces a worker that dies, restarts them one at a
 * time (`restart`, SIGHUP) and stops them gracefully (`close`). Key changes and snapshot switches
 * reach each worker from the data directory or Redis themselves, as they reach separate instances.
 */
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { MemoryLimiter } from '../../rate-limit/memory-limiter.ts';
import type { ReplicaStatus, SnapshotArrival } from '../../store/object-store/follow-store.ts';
import type { ServeConfig as Config } from '../serve-config.ts';
import type { RunningServer } from '../start-server.ts';
import type { PrimaryMessage, WorkerMessage } from './messages.ts';
import { answerCalls, type CallHandlers, type ChannelMessage } from './worker-channel.ts';

/** Options of startWorkers. */
export interface StartWorkersOptions {
  /** Worker processes, at least 2 (1 is the single process of startServer). */
  count: number;
  /** The primary's own events (worker started, exited, restarted). */
  log: (entry: Record<string, unknown>) => void;
  /** Whole log lines of the workers, to be written as they are. */
  writeLines: (text: string) => void;
  /** An event of a worker the caller acts on (snapshot_switched). */
  onEvent?: (entry: Record<string, unknown>) => void;
  /** The bucket follower's answers (`serve --from`), as startServer takes them. */
  arrivalOf?: (snapshotId: string) => Promise<SnapshotArrival>;
  onDamaged?: (listener: (snapshotId: string, reason: string) => void) => () => void;
  replica?: (servedId: string | null, now: Date) => Promise<ReplicaStatus>;
  /** How long a stopping worker may take before it is killed (default 35 s: past the request timeout). */
  stopTimeoutMs?: number;
}

/** The running workers: a server, and a rolling restart. */
export interface RunningWorkers extends RunningServer {
  /** Replaces the workers one at a time, each new one listening before the old one stops. */
  restart(): Promise<void>;
  /** Process ids of the workers serving now. */
  pids(): number[];
}

/** A worker that could not start: the error its startServer threw, as the CLI reports it. */
export class WorkerStartError extends Error {
  constructor(error: Extract<WorkerMessage, { mmds: 'failed' }>['error']) {
    super(error.message);
    Object.assign(this, error);
  }
}

interface Slot {
  number: number;
  worker: Worker;
  pid: number;
  stopping: boolean;
}

/** Forks `count` workers on `config`'s port and resolves once each listens. */
export async function startWorkers(
  config: Readonly<Config>,
  options: StartWorkersOptions,
): Promise<RunningWorkers> {
  const limiter = new MemoryLimiter();
  const handlers: CallHandlers = {
    consume: (bucket: string, limit: number) => limiter.consumeNow(bucket, limit),
    // A stopping worker's last call: its answer follows every connection handed to it before.
    settled: () => true,
    ...(options.arrivalOf ? { arrivalOf: (id: string) => options.arrivalOf!(id) } : {}),
    ...(options.replica
      ? { replica: (servedId: string | null, now: string) => options.replica!(servedId, new Date(now)) }
      : {}),
  };
  const slots: Slot[] = [];
  let closing = false;
  const send = (worker: Worker, message: PrimaryMessage | ChannelMessage) => {
    if (worker.isConnected()) worker.send(message);
  };
  const stopDamaged = options.onDamaged?.((snapshot, reason) => {
    for (const slot of slots) send(slot.worker, { mmds: 'damaged', snapshot, reason });
  });
  cluster.setupPrimary({ exec: fileURLToPath(new URL('./worker-main.ts', import.meta.url)), args: [] });

  /** Forks worker `number` and resolves with its slot once it listens (rejects if it cannot). */
  const fork = (number: number): Promise<{ slot: Slot; url: string }> =>
    new Promise((resolve, reject) => {
      const worker = cluster.fork();
      const slot: Slot = { number, worker, pid: worker.process.pid ?? 0, stopping: false };
      let ready = false;
      let failure: Error | null = null;
      worker.on('message', (message: WorkerMessage) => {
        if (answerCalls(message, handlers, (answer) => send(worker, answer))) return;
        if (message.mmds === 'lines') options.writeLines(message.text);
        else if (message.mmds === 'event') options.onEvent?.(message.entry);
        else if (message.mmds === 'failed') failure = new WorkerStartError(message.error);
        else if (message.mmds === 'ready') {
          ready = true;
          options.log({ event: 'worker_started', worker: number, pid: message.pid });
          resolve({ slot, url: message.url });
        }
      });
      worker.on('exit', (code, signal) => {
        const index = slots.indexOf(slot);
        if (index !== -1) slots.splice(index, 1);
        if (!ready) {
          reject(failure ?? new Error(`worker ${number} exited (${code ?? signal}) before it listened`));
          return;
        }
        if (slot.stopping || closing) return;
        // Died on its own (a crash, a kill): the others serve meanwhile; a new one takes its place.
        options.log({ event: 'worker_exited', worker: number, pid: slot.pid, code, signal });
        void replace(number);
      });
      send(worker, {
        mmds: 'start',
        worker: number,
        config,
        hooks: {
          arrivalOf: options.arrivalOf !== undefined,
          onDamaged: options.onDamaged !== undefined,
          replica: options.replica !== undefined,
        },
      });
    });

  /** Forks a replacement, again after a second while it cannot start. */
  const replace = async (number: number): Promise<void> => {
    while (!closing) {
      try {
        const { slot } = await fork(number);
        if (closing) await stopSlot(slot);
        else slots.push(slot);
        return;
      } catch (error) {
        options.log({ event: 'worker_failed', worker: number, error: (error as Error).message });
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  };

  /** Tells a worker to stop and resolves when it has exited (killed after the time-out). */
  const stopSlot = (slot: Slot): Promise<void> => {
    slot.stopping = true;
    if (slot.worker.isDead()) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => slot.worker.kill('SIGKILL'), options.stopTimeoutMs ?? 35_000);
      slot.worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      send(slot.worker, { mmds: 'stop' });
    });
  };

  const started = await Promise.allSettled(Array.from({ length: options.count }, (_, i) => fork(i + 1)));
  for (const result of started) if (result.status === 'fulfilled') slots.push(result.value.slot);
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    closing = true;
    stopDamaged?.();
    await Promise.all(slots.map(stopSlot));
    throw failed.reason;
  }
  const url = (started[0] as PromiseFulfilledResult<{ url: string }>).value.url;
  let restarting: Promise<void> | null = null;
  return {
    url,
    port: Number(new URL(url).port),
    pids: () => slots.map((slot) => slot.pid),
    restart() {
      restarting ??= (async () => {
        options.log({ event: 'workers_restart', workers: slots.length });
        for (const old of [...slots]) {
          if (closing) break;
          await replace(old.number);
          await stopSlot(old);
        }
      })().finally(() => {
        restarting = null;
      });
      return restarting;
    },
    async close() {
      closing = true;
      stopDamaged?.();
      await Promise.all(slots.map(stopSlot));
    },
  };
}
