import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { GATEWAY_CONFIG, GatewayConfig } from '@app/config/gateway-config';

const FORMAT = 'v1';
const IV_BYTES = 12;

/**
 * Encrypts tenant secret values with AES-256-GCM under SECRETS_KEY: a random 96-bit IV per value, and the
 * tenant and the secret's name as additional authenticated data, so a stored value copied to another tenant
 * or name fails to decrypt instead of being served there.
 */
@Injectable()
export class TenantSecretsCipher implements OnModuleInit {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewayConfig, 'secretsKey' | 'nodeEnv'>) {}

  /** In production an unset SECRETS_KEY is said once at start: the gateway runs, without tenant secrets. */
  onModuleInit(): void {
    if (this.config.nodeEnv === 'production' && !this.configured) {
      new Logger(TenantSecretsCipher.name).warn(
        'SECRETS_KEY is not set: tenant secrets are off (PUT /api/v1/admin/tenants/{tenantId}/secrets/{name} answers 409 SECRETS_NOT_CONFIGURED, and tenant tools that reference ${secret:NAME} fail without sending anything). Set it to 64 hex characters (`openssl rand -hex 32`) to enable them.',
      );
    }
  }

  /** Whether SECRETS_KEY is set. */
  get configured(): boolean {
    return this.config.secretsKey !== null;
  }

  encrypt(tenantId: string, name: string, value: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key(), iv);
    cipher.setAAD(aadOf(tenantId, name));
    const data = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return [
      FORMAT,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      data.toString('base64url'),
    ].join('.');
  }

  /** @throws Error when the key is missing or another key (or another tenant or name) encrypted it. */
  decrypt(tenantId: string, name: string, stored: string): string {
    const [format, iv, tag, data] = stored.split('.');
    if (format !== FORMAT || iv === undefined || tag === undefined || data === undefined)
      throw new Error('unknown format');
    const decipher = createDecipheriv('aes-256-gcm', this.key(), Buffer.from(iv, 'base64url'));
    decipher.setAAD(aadOf(tenantId, name));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }

  private key(): Buffer {
    if (!this.config.secretsKey) throw new Error('SECRETS_KEY is not set');
    return this.config.secretsKey;
  }
}

function aadOf(tenantId: string, name: string): Buffer {
  return Buffer.from(`tenant-secret:${tenantId}:${name}`, 'utf8');
}
