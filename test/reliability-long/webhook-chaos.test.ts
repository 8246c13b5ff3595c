import { expect, it } from 'vitest';
import { describeChaos, runWebhookChaos } from '../helpers/webhook-chaos.ts';

/**
 * Webhook delivery under chaos, long (issues 24 and 38; RELIABILITY.md quotes its summary line):
 * 200 real ECB releases, one business day each, published with the CLI to 1,000 subscriptions
 * while two `mmds deliver` processes sharing Redis are SIGKILLed and restarted at random and Redis
 * itself is SIGKILLed and restarted from its append-only file. 0 lost, 0 out of order per
 * subscription; duplicates (at least once) are counted.
 */

it('loses no event of 200 releases to 1,000 subscriptions and keeps each in order under kills of deliverers and Redis', async () => {
  const outcome = await runWebhookChaos({
    releases: 200,
    subscriptions: 1000,
    settleMs: 300_000,
    log: (line) => console.log(line),
  });
  console.log(describeChaos(outcome));
  expect(outcome.badSignatures).toEqual([]);
  expect(outcome.unexpectedExits).toEqual([]);
  expect(outcome.redisRestarts).toBeGreaterThan(0);
  for (const subscription of outcome.subscriptions)
    expect({
      path: subscription.path,
      lost: subscription.lost,
      unexpected: subscription.unexpected,
      outOfOrder: subscription.outOfOrder,
    }).toEqual({ path: subscription.path, lost: [], unexpected: [], outOfOrder: 0 });
  const byPath = Object.fromEntries(outcome.subscriptions.map((s) => [s.path, s.expected]));
  expect(byPath['/releases']).toBe(200);
  expect(byPath['/all']).toBe(outcome.events);
  expect(byPath['/none']).toBe(0);
  expect(outcome.subscriptions).toHaveLength(1000);
  // 200 ingests and publishes, about 2 s each unloaded (the 15-release run) and several times that
  // on a loaded two-core machine.
}, 3_000_000);
