import { expect, it } from 'vitest';
import { describeChaos, runWebhookChaos } from '../helpers/webhook-chaos.ts';

/**
 * Webhook delivery under chaos, small (issues 24 and 38): 15 real ECB releases published with the
 * CLI to 100 subscriptions while two `mmds deliver` processes sharing Redis are SIGKILLed and
 * restarted at random and Redis itself is restarted. The run at 1,000 subscriptions (200
 * releases; several minutes) is test/reliability-long/webhook-chaos.test.ts, in
 * `npm run test:reliability`.
 */

it('loses no event of 100 subscriptions and keeps each in order while deliverers and Redis are killed', async () => {
  const outcome = await runWebhookChaos({ releases: 15, subscriptions: 100 });
  console.log(describeChaos(outcome));
  expect(outcome.badSignatures).toEqual([]);
  expect(outcome.unexpectedExits).toEqual([]);
  expect(outcome.deliverKills).toBeGreaterThan(0);
  for (const subscription of outcome.subscriptions) {
    expect({ path: subscription.path, lost: subscription.lost }).toEqual({
      path: subscription.path,
      lost: [],
    });
    expect({
      path: subscription.path,
      unexpected: subscription.unexpected,
      outOfOrder: subscription.outOfOrder,
    }).toEqual({
      path: subscription.path,
      unexpected: [],
      outOfOrder: 0,
    });
  }
  const byPath = Object.fromEntries(outcome.subscriptions.map((s) => [s.path, s.expected]));
  // Each release: its release.published and one series.released per currency quoted that day.
  expect(byPath['/releases']).toBe(15);
  expect(byPath['/all']).toBe(outcome.events);
  expect(byPath['/usd']).toBeGreaterThanOrEqual(30);
  expect(byPath['/none']).toBe(0);
  expect(outcome.subscriptions).toHaveLength(100);
  for (const subscription of outcome.subscriptions.filter((s) => s.path.startsWith('/bulk/')))
    expect({ path: subscription.path, expected: subscription.expected }).toEqual({
      path: subscription.path,
      expected: 15,
    });
});
