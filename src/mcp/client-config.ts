/**
 * What a desktop MCP client needs to start `mmds mcp` (`mmds mcp --print-config`), in the JSON
 * shape each client documents: Claude Desktop and Cursor `{"mcpServers":{name:{command,args,env}}}`,
 * VS Code `{"servers":{name:{type:"stdio",command,args,env}},"inputs":[…]}`. Every path is
 * absolute (the Node binary, bin/mmds.js, the data directory), so the client may start it from any
 * working directory: `npx mmds` outside the checkout would ask the public registry for a package of
 * that name instead.
 *
 * The key: the plaintext of MMDS_API_KEY is printed only when the caller set it in the environment
 * of --print-config (they chose that key for the config). Otherwise MMDS_API_KEY is there empty
 * (anonymous: public tools only; paste a key in its place), and for VS Code it is an input the
 * editor asks for once and keeps in its secret storage (`${input:mmds-api-key}`).
 */
import { fileURLToPath } from 'node:url';

/** The clients whose configuration --print-config writes. */
export const MCP_CLIENTS = ['claude', 'cursor', 'vscode'] as const;
export type McpClientName = (typeof MCP_CLIENTS)[number];

/** The server's name in the printed configuration. */
export const MCP_SERVER_NAME = 'mmds';
/** The id of VS Code's input that holds the key. */
export const VSCODE_KEY_INPUT = 'mmds-api-key';

/** The entry point of the `mmds` command in this checkout. */
export const MMDS_BIN = fileURLToPath(new URL('../../bin/mmds.js', import.meta.url));

/** How to start the server: an absolute command, its arguments and its environment. */
export interface McpLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** What the launch is made of (from the running mmds and its configuration). */
export interface McpLaunchInput {
  /** The Node binary running this mmds (process.execPath). */
  node: string;
  /** The absolute data directory. */
  dataDir: string;
  /** MMDS_API_KEY as set for --print-config (null: not set). */
  apiKey: string | null;
  /** MMDS_STORAGE: where keys live ('file' is the default and left out). */
  storage: string;
  /** MMDS_KEY_PEPPER as set (null: not set); needed to check a key against its stored hash. */
  keyPepper: string | null;
  /** Flags of mmds mcp to pass on (--budget, --public-url). */
  flags: string[];
}

/** The command, arguments and environment that start `mmds mcp` from anywhere. */
export function mcpLaunch(input: McpLaunchInput, client: McpClientName): McpLaunch {
  // The client's environment, written here (not read: the settings table is what mmds reads).
  const env: Record<string, string> = {
    MMDS_DATA_DIR: input.dataDir,
    MMDS_API_KEY: input.apiKey ?? (client === 'vscode' ? `\${input:${VSCODE_KEY_INPUT}}` : ''),
    ...(input.storage === 'file' ? {} : { MMDS_STORAGE: input.storage }),
    ...(input.keyPepper === null ? {} : { MMDS_KEY_PEPPER: input.keyPepper }),
  };
  return { command: input.node, args: [MMDS_BIN, 'mcp', ...input.flags], env };
}

/** The configuration file's content for `client`. */
export function mcpClientConfig(client: McpClientName, launch: McpLaunch): Record<string, unknown> {
  if (client !== 'vscode') return { mcpServers: { [MCP_SERVER_NAME]: { ...launch } } };
  const usesInput = Object.values(launch.env).some((value) =>
    value.includes(`\${input:${VSCODE_KEY_INPUT}}`),
  );
  return {
    servers: { [MCP_SERVER_NAME]: { type: 'stdio', ...launch } },
    ...(usesInput
      ? {
          inputs: [
            {
              id: VSCODE_KEY_INPUT,
              type: 'promptString',
              description: 'MMDS API key (mmds keys issue); leave empty for the public tools only',
              password: true,
            },
          ],
        }
      : {}),
  };
}

/** Where each client reads its configuration (said on stderr after the printed config). */
export const MCP_CLIENT_CONFIG_FILES: Readonly<Record<McpClientName, string>> = Object.freeze({
  claude:
    'Claude Desktop: merge into claude_desktop_config.json (macOS ~/Library/Application Support/Claude/, Windows %APPDATA%\\Claude\\), then restart it',
  cursor: 'Cursor: merge into ~/.cursor/mcp.json (every project) or .cursor/mcp.json in a project',
  vscode:
    'VS Code: merge into .vscode/mcp.json in a workspace, or the user configuration (command "MCP: Open User Configuration")',
});
