/**
 * The demo key of `npm start` (scripts/demo.ts) and the requests the demo prints with it.
 *
 * One live demo key per data directory: its plaintext is printed at every start, and a plaintext
 * is never stored (only its hash), so each start issues a fresh key (every scope, a day long)
 * through the real key code and revokes the demo keys of earlier starts. `mmds keys list` shows
 * one active demo key, however often the demo ran.
 */
import type { Config } from '../src/config/load-config.ts';
import { SCOPES } from '../src/contract/routes.ts';
import { checkStateStorage, createStateStorage } from '../src/keys/create-storage.ts';
import type { KeyRecord } from '../src/keys/key-record.ts';
import { createKeyStore } from '../src/keys/key-store.ts';
import { issueKey, revokeKey } from '../src/keys/manage-keys.ts';

/** Who the demo key is issued to: how a start finds the keys of earlier starts. */
export const DEMO_KEY_ORG = 'demo';
export const DEMO_KEY_NAME = 'local demo key';
/** How long a demo key works: a day, renewed at every start. */
export const DEMO_KEY_LIFETIME_MS = 86_400_000;
/**
 * Requests a minute the demo key allows. The default 60 is spent within a minute by the printed
 * examples, the client walkthrough and the site tried together; a local demo has no one to share
 * the server with.
 */
export const DEMO_KEY_RATE_LIMIT = 1_000;

/** The demo key of this start, and the ids of earlier demo keys it replaced. */
export interface DemoKey {
  plaintext: string;
  record: KeyRecord;
  revoked: string[];
}

/**
 * Issues this start's demo key with every scope and DEMO_KEY_RATE_LIMIT, and revokes the earlier ones still in the store.
 * The new key is written first: a crash in between leaves two live demo keys, never none.
 */
export async function renewDemoKey(config: Readonly<Config>, now: Date): Promise<DemoKey> {
  const storage = createStateStorage(config.storage, config.dataDir);
  try {
    await checkStateStorage(storage, config.storage);
    const store = createKeyStore(storage);
    const earlier = (await store.list()).filter(
      (record) => record.org === DEMO_KEY_ORG && record.name === DEMO_KEY_NAME && record.revoked_at === null,
    );
    const issued = await issueKey(
      {
        org: DEMO_KEY_ORG,
        name: DEMO_KEY_NAME,
        scopes: SCOPES,
        rateLimit: DEMO_KEY_RATE_LIMIT,
        expiresAt: new Date(now.getTime() + DEMO_KEY_LIFETIME_MS),
      },
      store,
      now,
      config.keyPepper,
    );
    for (const record of earlier) await revokeKey(record.id, store, now);
    return { ...issued, revoked: earlier.map((record) => record.id) };
  } finally {
    await storage.dispose();
  }
}

/** One request the demo prints: what it returns, in words the demo test checks. */
export interface DemoRequest {
  says: string;
  path: string;
  keyed: boolean;
}

/**
 * The requests the demo prints. Each answers in one page (no `next_cursor`, no `Link: next`):
 * the CSV of payrolls starts at 2025-01, where the sample's two vintages differ, instead of
 * stopping at the default 1,000 of its 1,078 rows before them.
 */
export const DEMO_REQUESTS: readonly DemoRequest[] = [
  {
    // The public window is 12 reports, but the sample's legacy file holds fewer of gold.
    says: 'gold: its latest weekly COT reports, at most 12 without a key (public)',
    path: '/api/v1/markets/cot/gold',
    keyed: false,
  },
  {
    says: 'euro FX: the financial-futures (TFF) report (public)',
    path: '/api/v1/markets/cot/euro-fx?report_type=tff',
    keyed: false,
  },
  {
    says: 'VIX futures: all 167 weekly TFF reports of 2013-01 to 2016-03, each with its COT Index (26, 52, 156 weeks) and 52-week z-score',
    path: '/api/v1/markets/cot/vix-futures',
    keyed: true,
  },
  {
    says: 'payrolls, March to July 2025: every revision with its knowledge time',
    path: '/api/v1/observations?series=bls.CES0000000001&from=2025-03&to=2025-07',
    keyed: true,
  },
  {
    says: 'the same as known at the end of 2025 (as_of takes a day, a Z time or an offset)',
    path: '/api/v1/observations?series=bls.CES0000000001&from=2025-03&to=2025-07&as_of=2025-12-31',
    keyed: true,
  },
  {
    says: 'payrolls from 2025 as CSV: both vintages, revision 2 superseding revision 1',
    path: '/api/v1/macro/nonfarm-payrolls.csv?from=2025-01',
    keyed: true,
  },
];

/** The curl command of a demo request against `base`. */
export function toCurl(request: DemoRequest, base: string, key: string): string {
  const auth = request.keyed ? `-H "Authorization: Bearer ${key}" ` : '';
  return `curl -s ${auth}"${base}${request.path}"`;
}
