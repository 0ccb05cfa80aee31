import { CanActivate, ExecutionContext, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { GATEWAY_CONFIG, type GatewayConfig } from '@app/config/gateway-config';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';

/** GET /metrics: open when METRICS_TOKEN is empty, else `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time). */
@Injectable()
export class MetricsTokenGuard implements CanActivate, OnModuleInit {
  private readonly expected: Buffer | null;

  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {
    this.expected = config.metricsToken ? digest(config.metricsToken) : null;
  }

  /** In production an open /metrics is said once at start: its series name every tenant's tools and services. */
  onModuleInit(): void {
    if (this.config.nodeEnv === 'production' && !this.expected)
      new Logger('Metrics').warn(
        "METRICS_TOKEN is not set: GET /metrics answers anyone who reaches it, and its series name every tenant's tools and MCP services. Set METRICS_TOKEN (16+ characters), or keep /metrics off networks tenants reach.",
      );
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
