/**
 * The real-time parameters ALFRED users bring (issue 35 item 1), on endpoints 5 and 8 and on the
 * vintage dates of endpoint 27: realtime_start/realtime_end, output_type 1-4 and vintage_dates.
 * docs/api/vintages.md describes them; src/api/v1/vintages.ts computes the views.
 */
import { z } from 'zod';
import { REALTIME_MAX, REALTIME_MIN, REALTIME_ZONE, VINTAGE_DATES_MAX } from '../model/realtime.ts';
import { DAY } from './fx-params.ts';
import { isRealDay } from './instant.ts';
import type { ParamSpec } from './param-spec.ts';

export { REALTIME_MAX, REALTIME_MIN, REALTIME_ZONE, VINTAGE_DATES_MAX };

const VINTAGE_DATE_LIST = new RegExp(
  `^\\d{4}-\\d{2}-\\d{2}(,\\d{4}-\\d{2}-\\d{2}){0,${VINTAGE_DATES_MAX - 1}}$`,
);

function realtimeDay(description: string) {
  return {
    description,
    schema: z.string().regex(DAY).refine(isRealDay),
    expected: `a real calendar day YYYY-MM-DD (${REALTIME_MIN} to ${REALTIME_MAX})`,
    openapi: { type: 'string', format: 'date', pattern: DAY.source },
    keyedOnly: true,
  } satisfies ParamSpec;
}

/** Spread into PARAMS. */
export const VINTAGE_PARAMS = {
  realtime_start: realtimeDay(
    "Start of the real-time period (ALFRED's realtime_start), a day in St. Louis time: the vintages in " +
      'force from this day. Default: today, or realtime_end if earlier. 1776-07-04 for every vintage.',
  ),
  realtime_end: realtimeDay(
    "End of the real-time period (ALFRED's realtime_end): the vintages in force up to this day. " +
      'Default: today. 9999-12-31 for every vintage.',
  ),
  output_type: {
    description:
      "ALFRED's output_type: 1 (default) every value with the real-time period it was in force " +
      '(realtime_start, realtime_end, clipped to the period asked for); 2 all observations by vintage ' +
      'date (each period at each vintage date: the value in force then, null before it was known); 3 the ' +
      'same, new and revised values only; 4 initial release only (each period first released within ' +
      'the real-time period, its first value).',
    schema: z.enum(['1', '2', '3', '4']).transform(Number),
    expected: '1, 2, 3 or 4',
    openapi: { type: 'integer', enum: [1, 2, 3, 4], default: 1 },
    keyedOnly: true,
  },
  vintage_dates: {
    description:
      `ALFRED's vintage_dates: up to ${VINTAGE_DATES_MAX} days YYYY-MM-DD separated by commas, ascending, the ` +
      'data as known at the end of each (St. Louis time), instead of realtime_start/realtime_end.',
    schema: z
      .string()
      .regex(VINTAGE_DATE_LIST)
      .refine((text) => {
        const days = text.split(',');
        return days.every(isRealDay) && days.every((day, i) => i === 0 || day > days[i - 1]!);
      }),
    expected: `1 to ${VINTAGE_DATES_MAX} real days YYYY-MM-DD separated by commas, ascending, without repeats`,
    openapi: { type: 'string', pattern: VINTAGE_DATE_LIST.source },
    keyedOnly: true,
  },
} satisfies Record<string, ParamSpec>;

/** The names of the vintage parameters, in the order they are named in a conflict. */
export const VINTAGE_PARAM_NAMES = Object.keys(VINTAGE_PARAMS) as Array<keyof typeof VINTAGE_PARAMS>;
