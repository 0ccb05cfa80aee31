import { startBenchProcess } from './bench-process';
import { ECHO_MCP_READY_PREFIX } from './echo-mcp.server';

/** The benchmark MCP server running in its own process. */
export interface EchoMcpProcess {
  /** Its streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Starts bench/support/echo-mcp.server.ts as a child process and resolves once it listens. */
export async function startEchoMcpProcess(): Promise<EchoMcpProcess> {
  const peer = await startBenchProcess('bench/support/echo-mcp.server.ts', ECHO_MCP_READY_PREFIX);
  return { url: `http://127.0.0.1:${peer.port}/mcp`, pid: peer.pid, stop: peer.stop };
}
