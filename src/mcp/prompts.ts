import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/** The series a prompt reads when none is given: US nonfarm payrolls (BLS CES0000000001). */
const PAYROLLS = 'bls.CES0000000001';

const SERIES_ARGUMENT = z
  .string()
  .optional()
  .describe(`Series key as get_observations takes it (e.g. ${PAYROLLS}); default ${PAYROLLS}, US payrolls.`);

/** One user message: prompts are instructions to the agent, naming the tools to call. */
function ask(text: string): GetPromptResult {
  return { messages: [{ role: 'user', content: { type: 'text', text } }] };
}

/**
 * The analysts' prompts (issue 25): each says which tools answer it and how as_of is used, so
 * the agent compares what was known then with what is known now instead of mixing the two.
 */
export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'latest_release_changes',
    {
      title: 'What changed in the latest release, as first printed and now',
      description:
        'The values of the latest release of a series as first printed, the revisions it brought to earlier periods, and the same periods now.',
      argsSchema: { series: SERIES_ARGUMENT },
    },
    ({ series }) => {
      const key = series || PAYROLLS;
      return ask(
        [
          `What changed in the latest release of ${key}?`,
          `1. Call get_releases with series=${key} and find the latest release whose status is past; note its released_at.`,
          `2. Call get_observations with series=${key} and as_of set to that released_at: the values as first printed by that release (and what was known for earlier periods then).`,
          `3. Call get_observation_revisions with series=${key} for the periods that release touched: each period's first print, every revision with its knowledge time, and the latest value.`,
          '4. Report per period: the value as first printed, the value now, the change between them and when it was revised. Say which snapshot each answer came from; never mix a value known after the release into "as first printed".',
        ].join('\n'),
      );
    },
  );
  server.registerPrompt(
    'known_at',
    {
      title: 'What was known at an instant (backtest without look-ahead)',
      description:
        'The history of a series as it was known at an instant, next to the latest knowledge, with the periods revised since.',
      argsSchema: {
        series: SERIES_ARGUMENT,
        as_of: z.string().describe('The instant, RFC 3339 (e.g. 2026-01-01T00:00:00Z).'),
      },
    },
    ({ series, as_of }) => {
      const key = series || PAYROLLS;
      return ask(
        [
          `Show what was known about ${key} at ${as_of}, for a backtest without look-ahead.`,
          `1. Call get_observations with series=${key} and as_of=${as_of}: only values published by then.`,
          `2. Call get_observations with series=${key} and no as_of: the latest knowledge, revisions included.`,
          '3. List the periods whose value differs between the two, with both values and the knowledge time (observed_at) of each. If an answer is over the response budget, page it with limit and cursor as it says.',
        ].join('\n'),
      );
    },
  );
  server.registerPrompt(
    'cot_positioning',
    {
      title: 'Positioning of a futures market (Commitments of Traders)',
      description:
        'Net positions by trader category in a futures market over the latest weeks, and how they moved.',
      argsSchema: {
        market: z.string().describe('Market slug as get_cot_summary lists it (e.g. gold).'),
      },
    },
    ({ market }) =>
      ask(
        [
          `How are traders positioned in ${market} futures, and how has that moved?`,
          `1. Call get_cot_market with slug=${market} (add as_of to see what was published by an earlier instant).`,
          '2. Summarise the latest report: open interest, net positions by trader category and their share of open interest, and the week-on-week changes.',
          '3. Describe the trend over the reports returned, and name the report dates and the snapshot.',
        ].join('\n'),
      ),
  );
}
