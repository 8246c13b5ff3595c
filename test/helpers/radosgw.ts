import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { type ObjectStore, readS3Settings } from '../../src/store/object-store/object-store.ts';
import { openS3Store } from '../../src/store/object-store/s3-store.ts';
import { findFreePort } from './redis-server.ts';
import { createTempDir } from './temp-dir.ts';

/** A throwaway S3 server: Ceph's RADOS Gateway over one monitor and one memory-backed OSD. */
export interface RadosGateway {
  /** http://127.0.0.1:<port> */
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The standard AWS variables that point an S3 client at it (path-style, region us-east-1). */
  env: Record<string, string>;
  /** Milliseconds from the first command to the gateway answering HTTP. */
  startMs: number;
  /** Kills the three daemons, waits for them to exit and removes the temporary directory. */
  stop(): Promise<void>;
}

const INSTALL_HINT =
  'radosgw is not installed: apt-get install -y --no-install-recommends radosgw ceph-mon ceph-osd ' +
  '(Debian), or run .ci/run; the object-storage tests run against a real S3 server';

/**
 * Starts Ceph's RADOS Gateway on loopback (the recipe of ../shared/STACK.md): one monitor, one
 * OSD with `memstore` (nothing on disk but the monitor's small database), auth none, pools of
 * size 1, all files in a temporary directory. Creates a user with random keys and a bucket. Up in
 * about 15 s, so a test file starts it once, in beforeAll. The OSD holds `memstoreBytes` in memory
 * (default 1 GiB; the benchmark's stores need more).
 */
export async function startRadosGateway(options: { memstoreBytes?: number } = {}): Promise<RadosGateway> {
  const started = Date.now();
  try {
    return await startOnce(options, started);
  } catch (error) {
    // A start under load has been seen to fail once in a setup command (free ports probed
    // before the daemons bind them); a second try on new ports and a new directory. Not when
    // the binaries are missing.
    if ((error as Error).message === INSTALL_HINT) throw error;
    return startOnce(options, started);
  }
}

async function startOnce(options: { memstoreBytes?: number }, started: number): Promise<RadosGateway> {
  const temp = createTempDir('mmds-rgw-');
  const dir = temp.dir;
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(children.map(killProcess));
    temp.remove();
  };
  try {
    const [monPort, rgwPort] = await twoFreePorts();
    const fsid = randomUUID();
    for (const sub of ['run', 'log', 'mon/ceph-a', 'osd/ceph-0', 'rgw'])
      mkdirSync(join(dir, sub), { recursive: true });
    const conf = join(dir, 'ceph.conf');
    writeFileSync(conf, cephConf(dir, fsid, monPort, rgwPort, options.memstoreBytes ?? 2 ** 30));
    const ceph = (command: string, ...args: string[]) => run(command, ['-c', conf, ...args], dir);
    run(
      'monmaptool',
      ['--create', '--add', 'a', `v1:127.0.0.1:${monPort}`, '--fsid', fsid, join(dir, 'monmap')],
      dir,
    );
    ceph('ceph-mon', '--mkfs', '-i', 'a', '--monmap', join(dir, 'monmap'));
    children.push(daemon('ceph-mon', ['-c', conf, '-i', 'a', '-f'], dir));
    // The OSD's own uuid, given to both: without it the OSD may boot with a uuid the monitor
    // does not know ("wrong fsid") and never come up.
    const osdUuid = randomUUID();
    ceph('ceph', '--connect-timeout', '20', 'osd', 'create', osdUuid);
    ceph('ceph-osd', '-i', '0', '--mkfs', '--osd-uuid', osdUuid);
    ceph('ceph', 'osd', 'crush', 'add-bucket', 'h', 'host');
    ceph('ceph', 'osd', 'crush', 'move', 'h', 'root=default');
    ceph('ceph', 'osd', 'crush', 'add', 'osd.0', '1.0', 'host=h');
    const startOsd = () => daemon('ceph-osd', ['-c', conf, '-i', '0', '-f'], dir);
    const osd = { child: startOsd(), restarts: 0 };
    children.push(osd.child);
    children.push(daemon('radosgw', ['-c', conf, '-n', 'client.rgw', '-f'], dir));
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    // An OSD that quits during its start (a race with the monitor in Ceph 16) is started again.
    await waitForHttp(endpoint, 60_000, dir, () => {
      if (osd.child.exitCode === null || osd.restarts >= 2) return;
      osd.restarts++;
      osd.child = startOsd();
      children.push(osd.child);
    });
    const accessKeyId = `MMDSTEST${randomBytes(6).toString('hex').toUpperCase()}`;
    const secretAccessKey = randomBytes(20).toString('hex');
    ceph(
      'radosgw-admin',
      'user',
      'create',
      '--uid=mmds-test',
      '--display-name=mmds test',
      `--access-key=${accessKeyId}`,
      `--secret=${secretAccessKey}`,
    );
    const bucket = 'mmds-test';
    const env = {
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      AWS_REGION: 'us-east-1',
    };
    await createBucket(endpoint, bucket, env);
    return { endpoint, bucket, accessKeyId, secretAccessKey, env, startMs: Date.now() - started, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function cephConf(
  dir: string,
  fsid: string,
  monPort: number,
  rgwPort: number,
  memstoreBytes: number,
): string {
  return `[global]
fsid = ${fsid}
mon host = v1:127.0.0.1:${monPort}
mon initial members = a
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
osd objectstore = memstore
memstore device bytes = ${memstoreBytes}
osd crush chooseleaf type = 0
# The OSD is placed in the CRUSH map by hand; at boot it would also ask the monitor for that, and
# a request sent before it has the monitor map carries a zero fsid and fails its start.
osd crush update on start = false
osd class update on start = false
ms bind ipv6 = false
run dir = ${dir}/run
log file = ${dir}/log/$name.log
admin socket = ${dir}/run/$name.asok
pid file = ${dir}/run/$name.pid
mon data = ${dir}/mon/$cluster-$id
osd data = ${dir}/osd/$cluster-$id
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
rgw data = ${dir}/rgw
`;
}

/** Two distinct ports that were free a moment ago. */
async function twoFreePorts(): Promise<[number, number]> {
  const first = await findFreePort();
  let second = await findFreePort();
  while (second === first) second = await findFreePort();
  return [first, second];
}

function run(command: string, args: readonly string[], dir: string): string {
  const result = spawnSync(command, args, { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  if (result.error && (result.error as NodeJS.ErrnoException).code === 'ENOENT')
    throw new Error(INSTALL_HINT);
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} failed (${result.status ?? result.signal}):\n${result.stderr}${result.stdout}`,
    );
  return result.stdout;
}

function daemon(command: string, args: readonly string[], dir: string): ChildProcess {
  const child = spawn(command, args, { cwd: dir, stdio: 'ignore' });
  child.once('error', () => {});
  return child;
}

async function waitForHttp(
  endpoint: string,
  timeoutMs: number,
  dir: string,
  tick: () => void,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    tick();
    try {
      await fetch(endpoint, { signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  let log = '';
  for (const name of ['mon.a', 'osd.0', 'client.rgw']) {
    try {
      log += `--- ${name}.log\n${readFileSync(join(dir, 'log', `${name}.log`), 'utf8').slice(-1500)}\n`;
    } catch {}
  }
  throw new Error(`radosgw did not answer on ${endpoint} within ${timeoutMs} ms:\n${log}`);
}

/** Creates the bucket (the project never creates one: the operator does). */
async function createBucket(endpoint: string, bucket: string, env: Record<string, string>): Promise<void> {
  const client = new S3Client({
    endpoint,
    region: env.AWS_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
  });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
}

async function killProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/** The project's own client of the gateway's bucket, under `prefix` (the standard AWS variables of `env`). */
export function openGatewayStore(gateway: RadosGateway, prefix: string): ObjectStore {
  return openS3Store({ bucket: gateway.bucket, prefix }, readS3Settings(gateway.env));
}
