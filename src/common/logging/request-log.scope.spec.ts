import pino from 'pino';
import { storage } from 'nestjs-pino/storage';
import { bindLogFields, withLogFields } from './log-context';
import { RequestLogScope } from './request-log.scope';

/** A root logger writing JSON lines into an array, and a count of the child loggers made from it. */
function recordingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const root = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  let children = 0;
  const child = root.child.bind(root);
  root.child = ((...args: Parameters<typeof child>) => (children++, child(...args))) as typeof child;
  return { root, lines, children: () => children };
}

describe('RequestLogScope', () => {
  it('makes no child logger for a request that writes no line', () => {
    const { root, children } = recordingLogger();
    storage.run(RequestLogScope.forRequest(root, 'r-1'), () => {
      bindLogFields({ tenantId: 'acme' });
      withLogFields({ toolCallId: 'c-1' }, () => undefined);
    });
    expect(children()).toBe(0);
  });

  it("writes the request's id and bound fields on every line, one child per scope until the fields change", () => {
    const { root, lines, children } = recordingLogger();
    const scope = RequestLogScope.forRequest(root, 'r-2');
    storage.run(scope, () => {
      storage.getStore()!.logger.info('first');
      storage.getStore()!.logger.info('second');
      bindLogFields({ tenantId: 'acme', sessionId: 's-1' });
      storage.getStore()!.logger.info('third');
    });
    expect(lines.map(({ msg, requestId, tenantId }) => ({ msg, requestId, tenantId }))).toEqual([
      { msg: 'first', requestId: 'r-2', tenantId: undefined },
      { msg: 'second', requestId: 'r-2', tenantId: undefined },
      { msg: 'third', requestId: 'r-2', tenantId: 'acme' },
    ]);
    expect(children()).toBe(2);
    expect(scope.requestFields).toEqual({ requestId: 'r-2', tenantId: 'acme', sessionId: 's-1' });
  });

  it("keeps a tool call's fields on its own lines while the request's fields reach every scope", () => {
    const { root, lines } = recordingLogger();
    const scope = RequestLogScope.forRequest(root, 'r-3');
    storage.run(scope, () => {
      withLogFields({ toolCallId: 'c-1', tool: 'echo' }, () => {
        bindLogFields({ sessionId: 's-9' });
        storage.getStore()!.logger.info('inside');
      });
      storage.getStore()!.logger.info('outside');
    });
    expect(lines.map(({ msg, toolCallId, sessionId }) => ({ msg, toolCallId, sessionId }))).toEqual([
      { msg: 'inside', toolCallId: 'c-1', sessionId: 's-9' },
      { msg: 'outside', toolCallId: undefined, sessionId: 's-9' },
    ]);
    expect(scope.requestFields).toEqual({ requestId: 'r-3', sessionId: 's-9' });
  });

  it('does nothing outside a request', () => {
    expect(() => bindLogFields({ tenantId: 'acme' })).not.toThrow();
    expect(withLogFields({ toolCallId: 'c' }, () => 42)).toBe(42);
  });
});
