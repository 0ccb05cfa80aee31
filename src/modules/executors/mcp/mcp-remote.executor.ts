import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';
import { ToolCallError, ToolExecutor, ToolInvocation, ToolOutput } from '../tool-executor';
import { ToolErrorClass } from '../tool-error-class';
import { remoteCallContextOf, remoteCallMeta } from '../remote-context/remote-call.context';
import { McpClientPool } from './mcp-client.pool';
import { mapCallToolResult } from './mcp-content.mapper';
import { ToolHeadersResolver } from '../secrets/tool-headers.resolver';
import { errorWithoutSecrets, outputWithoutSecrets } from '../secrets/tool-header.secrets';

/**
 * Executes `serviceType: MCP_REMOTE` tools: `tools/call` of `remoteName ?? name` on the server at the
 * tool's `endpoint`, over the pooled session. The transport is `auto`: streamable HTTP, or legacy SSE when
 * the server does not speak it (found out on the first connect and remembered for the URL). The tool's
 * `headers` (with `${secret:NAME}` filled from its own scope) are sent on every request of its session. A result with `isError: true` is a tool output marked `isError` (not retried);
 * failures are ToolCallError as {@link McpClientPool} classifies them.
 */
@Injectable()
export class McpRemoteToolExecutor implements ToolExecutor {
  readonly serviceType = 'MCP_REMOTE' as const;

  constructor(
    private readonly pool: McpClientPool,
    private readonly headerSecrets: ToolHeadersResolver,
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewayConfig, 'toolDefaultTimeoutMs'>,
  ) {}

  async execute(invocation: ToolInvocation): Promise<ToolOutput> {
    const { tool } = invocation;
    let hidden: readonly string[] = [];
    try {
      // The tool's headers (secrets from its own scope) go on every request of its session.
      // A server that echoes its credentials must not hand them to the model, the journal or the tool log.
      const sent = await this.headerSecrets.headersToSend(`MCP tool "${tool.name}"`, tool);
      hidden = sent.hidden;
      const endpoint = {
        url: tool.endpoint,
        transport: 'auto' as const,
        headers: sent.headers,
        owner: tool.tenantId,
        caller: invocation.tenantId,
      };
      const result = await this.pool.callTool(endpoint, tool.remoteName ?? tool.name, invocation.arguments, {
        signal: invocation.signal,
        // The outer budget (the signal) governs; the SDK's own timer only backs it up.
        timeoutMs: tool.timeoutMs && tool.timeoutMs > 0 ? tool.timeoutMs : this.config.toolDefaultTimeoutMs,
        meta: remoteCallMeta(remoteCallContextOf(invocation)),
      });
      return outputWithoutSecrets(mapCallToolResult(result), hidden);
    } catch (err) {
      if (err instanceof ToolCallError) throw errorWithoutSecrets(err, hidden);
      throw errorWithoutSecrets(
        new ToolCallError(
          `MCP tool ${tool.name} failed: ${(err as Error)?.message ?? String(err)}`,
          ToolErrorClass.EXECUTOR_ERROR,
          { transient: false, reachedRemote: true, cause: err },
        ),
        hidden,
      );
    }
  }
}
