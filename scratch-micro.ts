import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllowHosts } from './src/hooks/address-policy.ts';
import { createDeliverer } from './src/hooks/deliverer.ts';
import { createHookStore } from './src/hooks/hook-store.ts';
import { addHook } from './src/hooks/manage-hooks.ts';
import { createStateStorage } from './src/keys/create-storage.ts';
import { createKeyStore } from './src/keys/key-store.ts';
import { issueKey } from './src/keys/manage-keys.ts';
import { mapConcurrent } from './src/lib/map-concurrent.ts';
import { arrayFeed } from './test/helpers/webhook-receiver.ts';

const N = Number(process.argv[2] ?? 1000);
const spec = process.argv[3] ?? 'file';
const dir = mkdtempSync(join(tmpdir(), 'micro-'));
const storage = createStateStorage(spec, dir);
let got = 0;
const server = createServer((req, res) => { req.resume(); req.on('end', () => { got++; res.writeHead(204).end(); }); });
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as any).port}`;
const keys = createKeyStore(storage);
const hooks = createHookStore(storage);
const { record: key } = await issueKey({ org: 'x', scopes: ['observations:read'] }, keys, new Date(), null);
const policy = parseAllowHosts('127.0.0.1');
const ids = await hooks.ids();
await mapConcurrent(Array.from({ length: N - ids.length }), 16, async () => {
  await addHook({ keyId: key.id, url: `${url}/h`, series: ['ecb.*'], types: ['release.published'] }, { hooks, keys }, policy, new Date(Date.now() - 1000));
});
const log: any[] = [];
const feed = arrayFeed(log);
const d = createDeliverer({ storage, feed, policy, pollMs: 1000 });
await d.runOnce(); // cursors settle
for (let r = 1; r <= 3; r++) {
  log.push({ id: `S${r}:1`, type: 'release.published', snapshot: `S${r}`, source: 'ecb', series: null, observed_at: new Date().toISOString().slice(0,19)+'Z', public: true, data: {} });
  got = 0;
  const t0 = performance.now(); const c0 = process.cpuUsage();
  await d.runOnce();
  const c = process.cpuUsage(c0);
  console.log(`release ${r}: ${got}/${N} in ${(performance.now() - t0).toFixed(0)} ms, cpu ${(c.user/1000).toFixed(0)}+${(c.system/1000).toFixed(0)} ms`);
}
await d.stop();
server.close(); server.closeAllConnections();
await storage.dispose();
