import { connectBareMcp, BareMcpClient } from './bare-mcp.client';
import type { BenchCall } from './load-runner';

/** The SDK as an MCP caller gets it: `StreamableHTTPClientTransport` with its default fetch (Node's). */
const BARE_SDK = 'bare SDK';
/** The SDK with its transport's fetch replaced by undici's keep-alive `request`: the fastest bare caller. */
export const BARE_SDK_UNDICI = 'bare SDK+undici';

/** Both bare-SDK callers (no gateway between caller and server), each with one pooled session to the benchmark server. */
export interface BareSdkBaselines {
  /** The two baseline paths, BARE_SDK first (the one ratios and goals refer to). */
  paths(tool: string, args: Record<string, unknown>): Record<string, BenchCall>;
  /** Setup lines for printSetup. */
  describe: Record<string, string>;
  close(): Promise<void>;
}

export async function connectBareSdkBaselines(url: string): Promise<BareSdkBaselines> {
  const clients: Array<[string, BareMcpClient]> = [
    [BARE_SDK, await connectBareMcp(url, 'global')],
    [BARE_SDK_UNDICI, await connectBareMcp(url, 'undici')],
  ];
  return {
    paths: (tool, args) => Object.fromEntries(clients.map(([name, client]) => [name, () => client.call(tool, args)])),
    describe: {
      [BARE_SDK]:
        'SDK Client + StreamableHTTPClientTransport as shipped (Node global fetch), one session shared by all callers; ratios and goals refer to it',
      [BARE_SDK_UNDICI]:
        'the same with its fetch replaced by undici request on a keep-alive Agent (3-4x less client overhead): the stricter baseline, ratios to it printed below',
    },
    close: async () => {
      for (const [, client] of clients) await client.close();
    },
  };
}
