import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Caller } from '../../contract/authorise.ts';
import { unauthorized } from '../../contract/errors.ts';
import { openEventLog } from '../../events/event-log.ts';
import { createStateStorage } from '../../keys/create-storage.ts';
import { createKeyStore } from '../../keys/key-store.ts';
import {
  MCP_CLIENT_CONFIG_FILES,
  MCP_CLIENTS,
  type McpClientName,
  mcpClientConfig,
  mcpLaunch,
} from '../../mcp/client-config.ts';
import type { McpContext } from '../../mcp/context.ts';
import { createMcpServer } from '../../mcp/server.ts';
import { StdioTransport } from '../../mcp/stdio-transport.ts';
import { offerSubscriptions } from '../../mcp/subscriptions.ts';
import { DEFAULT_TOKEN_BUDGET } from '../../mcp/tool-budget.ts';
import { describeKeyRefusal } from '../../server/key-refusal.ts';
import { createRequestId } from '../../server/request-id.ts';
import { ResponseCache } from '../../server/response-cache.ts';
import { openServedSnapshots } from '../../server/runtime.ts';
import { representFor } from '../../server/serve-mcp.ts';
import { callerOf } from '../../server/serve-state.ts';
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
    .option(
      '--print-config',
      'print the configuration a desktop client needs to start this server (absolute paths), then exit',
    )
    .option('--client <name>', `with --print-config: ${MCP_CLIENTS.join(', ')} (default claude)`)
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

--print-config prints the JSON a desktop client reads to start this server from anywhere: the Node
binary running this mmds, the absolute path of bin/mmds.js, MMDS_DATA_DIR as an absolute path and
MMDS_API_KEY (with --budget and --public-url passed on). The key's plaintext is printed only when
MMDS_API_KEY is set for --print-config (it is checked first); otherwise it is empty (public tools
only) and for VS Code an input the editor asks for. MMDS_STORAGE (other than file) and
MMDS_KEY_PEPPER are passed on when set. Where to put it is said on stderr (docs/mcp.md).

Examples:
  mmds mcp
  mmds mcp --print-config --client cursor
  MMDS_API_KEY=mmds_... mmds mcp --print-config > claude-mmds.json
  MMDS_API_KEY=mmds_... mmds mcp --budget 8000 --public-url https://data.example.org
  npx @modelcontextprotocol/inspector --cli npx mmds mcp --method tools/list`,
    )
    .action(
      async (flags: { budget?: string; publicUrl?: string; printConfig?: boolean; client?: string }) => {
        const context = getContext();
        if (flags.client !== undefined && !flags.printConfig)
          throw new UsageError('--client goes with --print-config (mmds mcp --print-config --client vscode)');
        if (flags.printConfig) clientName(flags.client);
        const budgetTokens = flags.budget === undefined ? DEFAULT_TOKEN_BUDGET : Number(flags.budget);
        if (!Number.isInteger(budgetTokens) || budgetTokens < 500 || budgetTokens > 1_000_000)
          throw new UsageError(
            `--budget must be a whole number of tokens from 500 to 1000000, got "${flags.budget}"`,
          );
        const publicBaseUrl = flags.publicUrl === undefined ? null : publicOrigin(flags.publicUrl);
        const { config } = context;
        const layout = resolveLayout(config.dataDir);
        const snapshotId = readCurrentId(layout);
        const noSnapshot = `no snapshot has been published in ${config.dataDir}; run mmds publish first`;
        if (snapshotId === null && !flags.printConfig) throw new ReportedFailure(noSnapshot);
        const storage = config.apiKey ? createStateStorage(config.storage, config.dataDir) : null;
        const keys = storage ? createKeyStore(storage) : null;
        const caller = async (): Promise<Caller | null> => {
          if (!keys || !config.apiKey) return null;
          const result = await keys.authenticate(config.apiKey, context.now(), config.keyPepper);
          if (!result.ok) throw unauthorized(`MMDS_API_KEY: ${describeKeyRefusal(result.log.reason)}`);
          const { record } = result;
          return callerOf(record);
        };
        if (flags.printConfig) {
          try {
            // A printed key that the server would refuse is a one-line failure now, not at start.
            await caller().catch((error: Error) => {
              throw new ReportedFailure(error.message);
            });
          } finally {
            await storage?.dispose();
          }
          const passOn = [
            ...(flags.budget === undefined ? [] : ['--budget', String(budgetTokens)]),
            ...(publicBaseUrl === null ? [] : ['--public-url', publicBaseUrl]),
          ];
          printClientConfig(context, clientName(flags.client), passOn);
          if (snapshotId === null) context.reporter.warn(noSnapshot);
          return;
        }
        // A session follows CURRENT, as mmds serve does: a publish during it is seen at once.
        // Opened as mmds serve opens them: checksums first, DuckDB locked (server/runtime.ts).
        const snapshots = await openServedSnapshots({
          layout,
          db: {
            poolSize: 2,
            memoryLimit: context.config.memoryLimit,
            revisionCacheBytes: context.config.revisionCacheMb * 2 ** 20,
          },
          log: (entry) => context.stderr.write(`${JSON.stringify(entry)}\n`),
          pollMs: 1_000,
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
            // The REST answer path with a response cache of the session's own (no built site here).
            represent: representFor({ staticSite: () => null, cache: new ResponseCache(), now: context.now }),
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
      },
    );
}

/** Prints the configuration of `client` on stdout, and where it goes and what it holds on stderr. */
function printClientConfig(context: CommandContext, client: McpClientName, passOn: string[]): void {
  const { config, reporter } = context;
  const launch = mcpLaunch(
    {
      node: process.execPath,
      dataDir: resolve(config.dataDir),
      apiKey: config.apiKey,
      storage: config.storage,
      keyPepper: config.keyPepper,
      flags: passOn,
    },
    client,
  );
  // The one document on stdout, with or without --json; the notes on stderr (not with --json).
  context.stdout.write(`${JSON.stringify(mcpClientConfig(client, launch), null, 2)}\n`);
  reporter.note(MCP_CLIENT_CONFIG_FILES[client]);
  if (config.apiKey) reporter.note('the config holds the plaintext of MMDS_API_KEY: keep the file private');
  else reporter.note('MMDS_API_KEY is not set: public tools only until a key is put in its place');
  if (config.keyPepper) reporter.note('the config holds MMDS_KEY_PEPPER, which checks keys: keep it private');
}

/** The client of --client (default claude). */
function clientName(name: string | undefined): McpClientName {
  if (name === undefined) return 'claude';
  const known = MCP_CLIENTS.find((client) => client === name.toLowerCase());
  if (!known)
    throw new UsageError(`--client must be one of ${MCP_CLIENTS.join(', ')}, got "${name.slice(0, 50)}"`);
  return known;
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
