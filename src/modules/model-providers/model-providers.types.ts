export const MODEL_PROVIDER_KINDS = ['OPENAI_COMPATIBLE'] as const;
export type ModelProviderKind = (typeof MODEL_PROVIDER_KINDS)[number];

/** Per-provider request options (all optional). */
export interface ModelProviderOptions {
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  /** The model's context window in tokens: longer conversations are sent their latest part (see the agent loop). */
  contextWindowTokens?: number;
  /** Budget of one model request; default MODEL_CALL_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Retries on 408/409/429/5xx and cut connections; default MODEL_MAX_RETRIES. */
  maxRetries?: number;
}

/** `${secret:NAME}`: the only accepted form of a provider key. */
export const API_KEY_REF_PATTERN = /^\$\{secret:([A-Za-z0-9_]+)\}$/;
