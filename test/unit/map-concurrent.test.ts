import { describe, expect, it } from 'vitest';
import { mapConcurrent } from '../../src/lib/map-concurrent.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mapConcurrent (object-store transfers)', () => {
  it('keeps the order of the items and never runs more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const results = await mapConcurrent([5, 1, 4, 2, 3, 0, 2], 3, async (ms, index) => {
      running++;
      most = Math.max(most, running);
      await tick(ms);
      running--;
      return `${index}:${ms}`;
    });
    expect(results).toEqual(['0:5', '1:1', '2:4', '3:2', '4:3', '5:0', '6:2']);
    expect(most).toBe(3);
  });

  it('rejects with the first failure and starts no further task', async () => {
    const started: number[] = [];
    const run = mapConcurrent([0, 1, 2, 3, 4, 5], 2, async (item) => {
      started.push(item);
      await tick(1);
      if (item === 1) throw new Error('object 1 is damaged');
      return item;
    });
    await expect(run).rejects.toThrow('object 1 is damaged');
    expect(started.length).toBeLessThan(6);
  });

  it('an empty list is an empty result', async () => {
    expect(await mapConcurrent([], 4, async () => 1)).toEqual([]);
  });
});
