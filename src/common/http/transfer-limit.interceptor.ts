import { CallHandler, ExecutionContext, Global, Inject, Injectable, Module, NestInterceptor } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import type { AuthContext } from '@app/common/auth/auth-context';
import { DomainError } from '@app/common/errors/domain-error';
import { CommonErrorCode } from '@app/common/errors/common.errors';
import { whenResponseCloses } from '@app/common/http/response-closed';
import { PerKeyPlaces } from '@app/common/per-key-places';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';

/** The Retry-After of a transfer refused for its key's open ones: a place frees when any of them ends. */
export const TRANSFER_RETRY_AFTER_SECONDS = 1;

/** The file transfers each API key has open on this instance, counted once for every module's transfer routes. */
@Injectable()
export class OpenTransfers extends PerKeyPlaces {}

/** Provides the one {@link OpenTransfers} to every module that applies {@link TransferLimit}. */
@Global()
@Module({ providers: [OpenTransfers], exports: [OpenTransfers] })
export class TransferLimitModule {}

/**
 * TRANSFERS_MAX_PER_KEY: the file transfers (workspace file uploads and downloads, artifact downloads, skill uploads)
 * one API key has open at once on this instance. Each holds a connection, an open file or a staging file, for as long
 * as its client takes; CLIENT_IDLE_TIMEOUT_MS cuts the stalled ones only, so without a cap one key could hold
 * thousands. One more is a 429 TOO_MANY_REQUESTS with Retry-After, before an upload's body is read (the raw upload
 * parser and the multipart one leave it unread for the handler). A transfer holds its place until its answer is over:
 * sent whole, failed, or its connection closed by the client. Applied with `@UseInterceptors` on the transfer routes;
 * Nest makes one interceptor per module, and they all count in the one {@link OpenTransfers}.
 */
@Injectable()
export class TransferLimit implements NestInterceptor {
  private readonly maxPerKey: number;

  constructor(
    private readonly openPerKey: OpenTransfers,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.maxPerKey = config.transfersMaxPerKey;
  }

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (this.maxPerKey === 0) return next.handle();
    const http = ctx.switchToHttp();
    const keyId = http.getRequest<FastifyRequest & { auth: AuthContext }>().auth.keyId;
    const reply = http.getResponse<FastifyReply>();
    const place = this.openPerKey.take(keyId, this.maxPerKey);
    if (!place) {
      void reply.header('Retry-After', TRANSFER_RETRY_AFTER_SECONDS);
      throw new DomainError(
        CommonErrorCode.TOO_MANY_REQUESTS,
        `This API key already has ${this.openPerKey.held(keyId)} file transfers open on this gateway instance (TRANSFERS_MAX_PER_KEY); retry once one of them has finished (see the Retry-After header).`,
      );
    }
    whenResponseCloses(reply.raw, () => place.release());
    return next.handle();
  }
}
