import { z } from 'zod';
import { FetchError, MIRROR_SETTING } from './fetch-error.ts';

// Only what decides success; the data itself is the parser's business (src/ingest/bls.ts).
const responseSchema = z.object({
  status: z.string(),
  message: z.array(z.string()).optional(),
  Results: z.unknown().optional(),
});

const DAILY_THRESHOLD = /daily threshold/i;
const INVALID_KEY = /key.*(invalid|not valid)|invalid.*key/i;
const NO_SERIES = /^Series does not exist for Series (.+)$/;
const YEARS_REDUCED = /Year range has been reduced/i;
const NO_DATA = /^No Data Available for Series (\S+) Year: (\d{4})$/;

/** What a successful answer said besides its data. */
export interface BlsResponseCheck {
  /** Messages that do not make the answer unusable, such as "No Data Available for …". */
  notices: string[];
}

/**
 * Checks one BLS API answer (always HTTP 200; the outcome is in `status` and `message`): refused
 * and failed requests, unknown series and a cut year range become FetchErrors in plain words.
 * `apiKey` is replaced in every message, because the API echoes a key it refuses.
 */
export function checkBlsResponse(url: string, text: string, apiKey: string | null): BlsResponseCheck {
  const scrub = (message: string) => (apiKey ? message.split(apiKey).join('<key>') : message);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new FetchError(url, `BLS API: the answer is not JSON; check the base URL (${MIRROR_SETTING})`, {
      kind: 'bad_content',
    });
  }
  const parsed = responseSchema.safeParse(json);
  if (!parsed.success) {
    throw new FetchError(url, `BLS API: the answer has no status; check the base URL (${MIRROR_SETTING})`, {
      kind: 'bad_content',
    });
  }
  const { status } = parsed.data;
  const messages = (parsed.data.message ?? []).map(scrub);
  const said = messages.join(' ') || 'no message';
  if (status === 'REQUEST_NOT_PROCESSED') {
    if (messages.some((message) => DAILY_THRESHOLD.test(message))) {
      const advice = apiKey
        ? 'try again tomorrow (a registered key allows 500 queries a day)'
        : 'try again tomorrow or set MMDS_BLS_API_KEY (a registered key allows 500 queries a day)';
      throw new FetchError(url, `BLS API: daily query limit reached (${said}); ${advice}`, {
        kind: 'bad_content',
      });
    }
    if (messages.some((message) => INVALID_KEY.test(message))) {
      throw new FetchError(
        url,
        `BLS API: the registration key was refused (${said}); check MMDS_BLS_API_KEY`,
        {
          kind: 'bad_content',
        },
      );
    }
    throw new FetchError(url, `BLS API: the request was not processed (${said})`, { kind: 'bad_content' });
  }
  if (status !== 'REQUEST_SUCCEEDED') {
    throw new FetchError(url, `BLS API: the request failed (${status}: ${said})`, { kind: 'bad_content' });
  }
  const missing = messages.flatMap((message) => NO_SERIES.exec(message)?.[1] ?? []);
  if (missing.length > 0) {
    throw new FetchError(
      url,
      `BLS API: series ${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist; check the series id${missing.length === 1 ? '' : 's'}`,
      { kind: 'bad_content' },
    );
  }
  const cut = messages.find((message) => YEARS_REDUCED.test(message));
  // Never expected (queries stay within the limits); a silent cut would lose whole years.
  if (cut !== undefined) {
    throw new FetchError(url, `BLS API: the year range was cut (${cut}); the answer is incomplete`, {
      kind: 'bad_content',
    });
  }
  return { notices: summariseNotices(messages) };
}

/** One line per series for the API's one-message-per-year "No Data Available" notes. */
function summariseNotices(messages: readonly string[]): string[] {
  const years = new Map<string, string[]>();
  const others: string[] = [];
  for (const message of messages) {
    const match = NO_DATA.exec(message);
    if (!match) others.push(message);
    else years.set(match[1] as string, [...(years.get(match[1] as string) ?? []), match[2] as string]);
  }
  const noData = [...years].map(([id, list]) => `no data for ${id} in ${list.join(', ')}`);
  return [...others, ...noData];
}
