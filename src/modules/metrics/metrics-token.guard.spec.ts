import { Logger, type ExecutionContext } from '@nestjs/common';
import type { GatewayConfig } from '@app/config/gateway-config';
import { MetricsTokenGuard } from './metrics-token.guard';

const guardWith = (metricsToken: string, nodeEnv = 'production') =>
  new MetricsTokenGuard({ metricsToken, nodeEnv } as GatewayConfig);

const requestWith = (authorization?: string) =>
  ({ switchToHttp: () => ({ getRequest: () => ({ headers: { authorization } }) }) }) as unknown as ExecutionContext;

describe('MetricsTokenGuard', () => {
  afterEach(() => jest.restoreAllMocks());

  it('lets the token through and refuses anything else when METRICS_TOKEN is set', () => {
    const guard = guardWith('metrics-token-0123456789');
    expect(guard.canActivate(requestWith('Bearer metrics-token-0123456789'))).toBe(true);
    for (const header of [undefined, 'Bearer wrong-token-0123456789', 'metrics-token-0123456789'])
      expect(() => guard.canActivate(requestWith(header))).toThrow(/METRICS_TOKEN/);
  });

  it('says at start in production that /metrics is open, and only then', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    guardWith('').onModuleInit();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toContain("name every tenant's tools");
    guardWith('metrics-token-0123456789').onModuleInit();
    guardWith('', 'development').onModuleInit();
    expect(warn).toHaveBeenCalledTimes(1);
  });
});
