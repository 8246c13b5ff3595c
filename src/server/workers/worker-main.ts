/**
 * The entry of one worker process of `mmds serve --workers N` (node:cluster forks it). It waits
 * for the primary's `start` message (the configuration the CLI resolved), runs the same server as
 * a single process (start-server.ts) on the shared port, counts rate limits in the primary, and
 * hands its log lines to the primary. It stops gracefully when told (`stop`), on SIGTERM or
 * SIGINT, or when the primary is gone.
 */
import type { Decision } from '../../rate-limit/sliding-log.ts';
import type { ReplicaStatus, SnapshotArrival } from '../../store/object-store/follow-store.ts';
import { createLineLog } from '../log-lines.ts';
import type { ServeConfig as Config } from '../serve-config.ts';
import { type RunningServer, type StartServerOptions, startServer } from '../start-server.ts';
import type { PrimaryMessage, StartMessage, WorkerMessage } from './messages.ts';
import { type ChannelMessage, PrimaryChannel } from './worker-channel.ts';

const send = (message: WorkerMessage | ChannelMessage) => {
  if (process.connected) process.send!(message);
};
const channel = new PrimaryChannel(send);
const damagedListeners = new Set<(snapshotId: string, reason: string) => void>();
let server: RunningServer | null = null;
let starting: Promise<void> | null = null;
let stopping: Promise<void> | null = null;
let flushLines = () => {};

process.on('message', (message: unknown) => {
  if (channel.receive(message)) return;
  const control = message as PrimaryMessage;
  if (control?.mmds === 'start') starting = start(control);
  else if (control?.mmds === 'stop') void stop();
  else if (control?.mmds === 'damaged')
    for (const listener of damagedListeners) listener(control.snapshot, control.reason);
});
// The primary forwards the signals of a stop; one sent to the whole process group (a terminal's
// Ctrl-C, systemd's stop) reaches the worker too and stops it the same way.
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
process.on('disconnect', () => {
  channel.close('the primary process is gone');
  void stop();
});

async function start(message: StartMessage): Promise<void> {
  const lines = createLineLog((text) => send({ mmds: 'lines', text }), message.worker);
  flushLines = lines.flush;
  const log = (entry: Record<string, unknown>) => {
    lines.log(entry);
    // The primary wakes its webhook deliverer on a switch (serve --deliver).
    if (entry.event === 'snapshot_switched') send({ mmds: 'event', entry });
  };
  const options: StartServerOptions = {
    log,
    limiter: {
      consume: (bucket, limit) => channel.call('consume', [bucket, limit]) as Promise<Decision>,
    },
  };
  if (message.hooks.arrivalOf)
    options.arrivalOf = (id) => channel.call('arrivalOf', [id]) as Promise<SnapshotArrival>;
  if (message.hooks.replica)
    options.replica = (servedId, now) =>
      channel.call('replica', [servedId, now.toISOString()]) as Promise<ReplicaStatus>;
  if (message.hooks.onDamaged)
    options.onDamaged = (listener) => {
      damagedListeners.add(listener);
      return () => damagedListeners.delete(listener);
    };
  try {
    server = await startServer(message.config as Config, options);
    send({ mmds: 'ready', url: server.url, pid: process.pid });
  } catch (error) {
    const {
      message: text,
      code,
      syscall,
      address,
      port,
    } = error as NodeJS.ErrnoException & {
      address?: string;
      port?: number;
    };
    lines.flush();
    send({ mmds: 'failed', error: { message: text, code, syscall, address, port } });
    process.disconnect();
    process.exitCode = 1;
  }
}

async function stop(): Promise<void> {
  stopping ??= (async () => {
    await starting;
    await server?.close();
    // The primary may have handed this worker a connection before it learnt of the close: such a
    // connection waits in the channel for the worker to refuse it (the primary then hands it to
    // another). A round trip after the close drains the channel; leaving without it left those
    // connections open in the primary, unanswered (Node's round-robin handle waits for a reply).
    if (process.connected) await channel.call('settled', []).catch(() => {});
    flushLines();
    // Lets the last lines reach the primary before the channel closes.
    if (process.connected) process.disconnect();
  })();
  return stopping;
}
