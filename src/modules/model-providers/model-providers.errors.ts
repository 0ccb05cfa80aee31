/** Error codes of model providers. */
export enum ModelProvidersErrorCode {
  /** The scope (tenant or platform) already has a provider of that name. */
  MODEL_PROVIDER_NAME_TAKEN = 'MODEL_PROVIDER_NAME_TAKEN',
}
