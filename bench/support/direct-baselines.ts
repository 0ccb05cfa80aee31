import { connectDirectMcp, DirectMcpClient } from './direct-mcp.client';
import type { BenchCall } from './load-runner';

/** The SDK as an MCP caller gets it: `StreamableHTTPClientTransport` with its default fetch (Node's). */
export const DIRECT_SDK = 'direct SDK';
/** The SDK with its transport's fetch replaced by undici's keep-alive `request`: the fastest direct caller. */
export const DIRECT_TUNED = 'direct SDK+undici';

/** Both direct callers, each with one pooled session to the benchmark server. */
export interface DirectBaselines {
  /** The two baseline paths, DIRECT_SDK first (the one ratios and goals refer to). */
  paths(tool: string, args: Record<string, unknown>): Record<string, BenchCall>;
  /** Setup lines for printSetup. */
  describe: Record<string, string>;
  close(): Promise<void>;
}

export async function connectDirectBaselines(url: string): Promise<DirectBaselines> {
  const clients: Array<[string, DirectMcpClient]> = [
    [DIRECT_SDK, await connectDirectMcp(url, 'global')],
    [DIRECT_TUNED, await connectDirectMcp(url, 'undici')],
  ];
  return {
    paths: (tool, args) => Object.fromEntries(clients.map(([name, client]) => [name, () => client.call(tool, args)])),
    describe: {
      [DIRECT_SDK]:
        'SDK Client + StreamableHTTPClientTransport as shipped (Node global fetch), one session shared by all callers; ratios and goals refer to it',
      [DIRECT_TUNED]:
        'the same with its fetch replaced by undici request on a keep-alive Agent (3-4x less client overhead): the stricter baseline, ratios to it printed below',
    },
    close: async () => {
      for (const [, client] of clients) await client.close();
    },
  };
}
