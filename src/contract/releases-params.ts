/** The per-route parameters of /api/v1/releases (releases-routes.ts): `series`, and public `from`/`to`. */
import { z } from 'zod';
import type { ParamSpec } from './param-spec.ts';
import { PARAMS } from './params.ts';

/** `series` on /releases (a per-route override): optional, a series key or a slug. */
export const RELEASES_SERIES_PARAM: ParamSpec = {
  description:
    'Only the releases that carry this series: a series key (bls.CES0000000001) or slug (nonfarm-payrolls) of ' +
    '/api/v1/series, or the slug of a COT market of /api/v1/markets/cot (gold: every report type of it).',
  schema: z.string().regex(/^([a-z0-9-]{1,64}|[a-z0-9-]{1,32}\.[A-Za-z0-9_.-]{1,64})$/),
  expected:
    'a series key such as bls.CES0000000001, a series slug such as nonfarm-payrolls, or a COT market slug',
  openapi: { type: 'string', pattern: '^([a-z0-9-]{1,64}|[a-z0-9-]{1,32}\\.[A-Za-z0-9_.-]{1,64})$' },
};

/** `from`/`to` on /releases (per-route overrides): public, days of the release time in UTC. */
export const RELEASES_RANGE_PARAMS: Record<'from' | 'to', ParamSpec> = {
  from: {
    ...PARAMS.from,
    keyedOnly: false,
    description:
      'Releases from the first day of this period (YYYY, YYYY-MM, YYYY-Qn or YYYY-MM-DD, a UTC day of the ' +
      'release time). Default: 92 days before today (or before the end of to, if earlier). From and to may span at most 1096 days.',
  },
  to: {
    ...PARAMS.to,
    keyedOnly: false,
    description:
      'Releases to the last day of this period (YYYY, YYYY-MM, YYYY-Qn or YYYY-MM-DD, a UTC day of the ' +
      'release time). Default: open, up to the end of each calendar (docs/api/releases.md).',
  },
};
