import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { GATEWAY_CONFIG, type GatewayConfig } from '@app/config/gateway-config';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';

/** GET /metrics: open when METRICS_TOKEN is empty, else `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time). */
@Injectable()
export class MetricsTokenGuard implements CanActivate {
  private readonly expected: Buffer | null;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.expected = config.metricsToken ? digest(config.metricsToken) : null;
  }

  canActivate(ctx: ExecutionContext): boolean {
    if (!this.expected) return true;
    const header = ctx.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>()
      .headers.authorization;
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
    if (token !== undefined && timingSafeEqual(digest(token), this.expected)) return true;
    throw new DomainError(
      CommonErrorCode.UNAUTHENTICATED,
      'GET /metrics needs the header "Authorization: Bearer <METRICS_TOKEN>" with the token this gateway was started with.',
    );
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
