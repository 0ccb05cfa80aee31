/** Error codes of tenant secrets. */
export enum TenantSecretsErrorCode {
  /** SECRETS_KEY is not set, so a tenant secret cannot be stored encrypted; the platform operator must set it. */
  SECRETS_NOT_CONFIGURED = 'SECRETS_NOT_CONFIGURED',
}
