import type { Command } from 'commander';
import { unauthorized } from '../../contract/errors.ts';
import { openEventLog } from '../../events/event-log.ts';
import { createStateStorage } from '../../keys/create-storage.ts';
import { createKeyStore } from '../../keys/key-store.ts';
import { createMcpServer, DEFAULT_TOKEN_BUDGET, type McpContext } from '../../mcp/server.ts';
import { StdioTransport } from '../../mcp/stdio-transport.ts';
import { offerSubscriptions } from '../../mcp/subscriptions.ts';
import { openSnapshotDb } from '../../query/snapshot-db.ts';
import type { Caller } from '../../server/handler-deps.ts';
import { describeKeyRefusal } from '../../server/key-refusal.ts';
import { createRequestId } from '../../server/request-id.ts';
import { createSnapshotManager } from '../../server/snapshot-manager.ts';
import { resolveLayout } from '../../store/layout.ts';
import { readCurrentId } from '../../store/manifest.ts';
import type { CommandContext } from '../context.ts';
import { ReportedFailure } from '../reported-failure.ts';
import { UsageError } from '../usage-error.ts';

/** Registers `mmds mcp`. */
export function registerMcp(program: Command, getContext: () => CommandContext): void {
  program
    .command('mcp')
    .description('serve the MCP tools over stdio for a desktop agent (Claude Desktop, VS Code)')
    .option(
      '--budget <tokens>',
      `response budget of one tool call in tokens, 4 characters each (default ${DEFAULT_TOKEN_BUDGET})`,
    )
    .option(
      '--public-url <url>',
      'origin of the mmds serve that serves this data (https://host): over-budget answers link its CSV or bulk files there',
    )
    .addHelpText(
      'after',
      `
Speaks the Model Context Protocol on stdin and stdout: the tools of docs/mcp.md, each answering
as the REST endpoint it names does, from the current snapshot of MMDS_DATA_DIR (a publish during
the session is followed, as mmds serve follows it). With MMDS_API_KEY set, tools act with that key's scopes (checked at start and on
every call: a revoked key stops working); without it, as an anonymous caller. No rate limit: the
process reads the local store. Logs nothing on stdout but protocol messages. Resources may be
subscribed to (resources/subscribe): after each publish, one notifications/resources/updated per
subscribed series or market that the publish released or revised, within the key's rights.

Examples:
  mmds mcp
  MMDS_API_KEY=mmds_... mmds mcp --budget 8000 --public-url https://data.example.org
  npx @modelcontextprotocol/inspector --cli npx mmds mcp --method tools/list`,
    )
    .action(async (flags: { budget?: string; publicUrl?: string }) => {
      const context = getContext();
      const budgetTokens = flags.budget === undefined ? DEFAULT_TOKEN_BUDGET : Number(flags.budget);
      if (!Number.isInteger(budgetTokens) || budgetTokens < 500 || budgetTokens > 1_000_000)
        throw new UsageError(
          `--budget must be a whole number of tokens from 500 to 1000000, got "${flags.budget}"`,
        );
      const publicBaseUrl = flags.publicUrl === undefined ? null : publicOrigin(flags.publicUrl);
      const { config } = context;
      const layout = resolveLayout(config.dataDir);
      const snapshotId = readCurrentId(layout);
      if (snapshotId === null)
        throw new ReportedFailure(
          `no snapshot has been published in ${config.dataDir}; run mmds publish first`,
        );
      const storage = config.apiKey ? createStateStorage(config.storage, config.dataDir) : null;
      const keys = storage ? createKeyStore(storage) : null;
      const caller = async (): Promise<Caller | null> => {
        if (!keys || !config.apiKey) return null;
        const result = await keys.authenticate(config.apiKey, context.now(), config.keyPepper);
        if (!result.ok) throw unauthorized(`MMDS_API_KEY: ${describeKeyRefusal(result.log.reason)}`);
        const { record } = result;
        return { keyId: record.id, org: record.org, scopes: record.scopes, rateLimit: record.rate_limit };
      };
      // A session follows CURRENT, as mmds serve does: a publish during it is seen at once.
      const snapshots = await createSnapshotManager({
        layout,
        open: (id) => openSnapshotDb(layout, id, { poolSize: 2 }),
        log: (entry) => context.stderr.write(`${JSON.stringify(entry)}\n`),
        pollMs: 1_000,
        watch: true,
      });
      let stopUpdates = () => {};
      try {
        // A bad key is a one-line failure at start, not a surprise at the first tool call.
        await caller().catch((error: Error) => {
          throw new ReportedFailure(error.message);
        });
        const mcpContext: McpContext = {
          snapshot: () => snapshots.current(),
          caller,
          now: context.now,
          requestId: createRequestId,
          log: (entry) => context.stderr.write(`${JSON.stringify(entry)}\n`),
          budgetTokens,
          publicBaseUrl,
        };
        const server = createMcpServer(mcpContext);
        // Subscriptions follow the release event log of the snapshot in service, as SSE does.
        const events = openEventLog(layout, { head: () => snapshots.current()?.id ?? null });
        const subscriptions = offerSubscriptions(server, mcpContext, events);
        stopUpdates = snapshots.onSwitch(() => void subscriptions.update());
        // Not the SDK's transport: it ends the session without a word on a line over 10 MiB and
        // sends nothing back for a line that is not JSON (stdio-transport.ts).
        const transport = new StdioTransport(process.stdin, context.stdout, { log: mcpContext.log });
        const closed = new Promise<void>((resolve) => {
          transport.onclose = resolve;
          process.stdin.once('end', resolve);
        });
        await server.connect(transport);
        await closed;
        await server.close();
      } finally {
        stopUpdates();
        await snapshots.close();
        await storage?.dispose();
      }
    });
}

/** The origin of --public-url: an http(s) URL without path, query or credentials. */
function publicOrigin(text: string): string {
  const url = URL.canParse(text) ? new URL(text) : null;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password)
    throw new UsageError(
      `--public-url must be an http or https URL such as https://data.example.org, got "${text.slice(0, 100)}"`,
    );
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)
    throw new UsageError(
      `--public-url is an origin (https://host[:port]) without a path or query, got "${text.slice(0, 100)}"`,
    );
  return url.origin;
}
