import { Injectable } from '@nestjs/common';
import { request } from 'undici';
import { TOOL_MAX_RESPONSE_BYTES, ToolCallError, ToolExecutor, ToolInvocation, ToolOutput } from '../tool-executor';
import { ToolErrorClass } from '../tool-error-class';
import { OutboundHttpAgent } from '../outbound/outbound-http.agent';
import { abortedError, classifyNetworkError, isAbortError } from '../outbound/network-error.classifier';
import { ToolHeadersResolver } from '../secrets/tool-headers.resolver';
import { errorWithoutSecrets, hideSecretValues, outputWithoutSecrets } from '../secrets/tool-header.secrets';
import { remoteCallContextOf } from '../remote-context/remote-call.context';
import { buildHttpToolRequest } from './http-request.builder';
import { decodeContent, httpStatusError, readBodyLimited, toHttpToolOutput } from './http-response.reader';

/**
 * Executes `serviceType: HTTP` tools: one HTTP request per attempt on the shared keep-alive Agent, through
 * the outbound guard, aborted by the invocation's signal (the socket is destroyed, so the server sees the
 * connection close). See {@link buildHttpToolRequest} for how arguments become the request and
 * {@link toHttpToolOutput} / {@link httpStatusError} for how the response becomes the result.
 */
@Injectable()
export class HttpToolExecutor implements ToolExecutor {
  readonly serviceType = 'HTTP' as const;

  constructor(
    private readonly outbound: OutboundHttpAgent,
    private readonly headerSecrets: ToolHeadersResolver,
  ) {}

  async execute(invocation: ToolInvocation): Promise<ToolOutput> {
    const { tool, signal } = invocation;
    const secrets = await this.headerSecrets.scopeFor(tool);
    const req = buildHttpToolRequest(tool, invocation.arguments, remoteCallContextOf(invocation), secrets);
    const hidden = this.headerSecrets.secretsToHide(tool, secrets);
    const outbound = this.outbound.scope(tool.tenantId);
    outbound.guard.checkUrl(req.url);
    const target = `${req.method} ${req.url.origin}${req.url.pathname}`;
    try {
      const res = await request(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal,
        dispatcher: outbound.dispatcher,
        // The call's outer budget (the signal) bounds the exchange, not undici's own timers.
        headersTimeout: 0,
        bodyTimeout: 0,
      });
      if (res.statusCode < 200 || res.statusCode >= 300) {
        throw await httpStatusError(target, res.statusCode, res.headers, res.body, (text) =>
          hideSecretValues(text, hidden),
        );
      }
      const raw = await readBodyLimited(res.body, res.headers, TOOL_MAX_RESPONSE_BYTES);
      const body = raw && (await decodeContent(target, res.statusCode, res.headers, raw, TOOL_MAX_RESPONSE_BYTES));
      if (body === null) {
        throw new ToolCallError(
          `${target} returned more than ${TOOL_MAX_RESPONSE_BYTES} bytes; ask the service for a smaller page.`,
          ToolErrorClass.RESPONSE_TOO_LARGE,
          { transient: false, reachedRemote: true, httpStatus: res.statusCode },
        );
      }
      return outputWithoutSecrets(toHttpToolOutput(res.statusCode, res.headers, body), hidden);
    } catch (err) {
      throw errorWithoutSecrets(toToolCallError(err, signal, target), hidden);
    }
  }
}

function toToolCallError(err: unknown, signal: AbortSignal, target: string): ToolCallError {
  if (err instanceof ToolCallError) return err;
  if (signal.aborted || isAbortError(err)) return abortedError(signal, target, err);
  return (
    classifyNetworkError(err, target) ??
    new ToolCallError(`${target} failed: ${(err as Error)?.message ?? String(err)}`, ToolErrorClass.EXECUTOR_ERROR, {
      transient: false,
      reachedRemote: true,
      cause: err,
    })
  );
}
