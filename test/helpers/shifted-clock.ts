/**
 * Preload for a spawned `mmds` (`node --import <this file> bin/mmds.js …`): shifts the process's
 * clock so that it starts at MMDS_TEST_CLOCK_START (RFC 3339) and then runs at the real pace, the
 * way runMmds injects a clock into an in-process run. Only the clock is faked; timers and
 * durations keep working because the clock still advances.
 */
const start = process.env.MMDS_TEST_CLOCK_START;
if (start !== undefined) {
  const target = Date.parse(start);
  if (Number.isNaN(target)) throw new Error(`MMDS_TEST_CLOCK_START: not a time: "${start}"`);
  const RealDate = Date;
  const offset = target - RealDate.now();
  class ShiftedDate extends RealDate {
    constructor(...args: ConstructorParameters<typeof Date> | []) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...(args as ConstructorParameters<typeof Date>));
    }
    static override now(): number {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = ShiftedDate as DateConstructor;
}
