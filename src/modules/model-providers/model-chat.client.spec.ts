import type { GatewayConfig } from '@app/config/gateway-config';
import type { OutboundHttpAgent } from '@app/modules/executors/outbound/outbound-http.agent';
import type { ToolSecretsResolver } from '@app/modules/tenant-secrets/tool-secrets.resolver';
import type { ModelProviderEntity } from './model-provider.entity';
import { MAX_CACHED_MODEL_CLIENTS, ModelChatClient } from './model-chat.client';

const config = {
  agentLoop: { modelCallTimeoutMs: 1000, modelMaxAnswerBytes: 1000, modelRetryMaxAfterMs: 1000, modelMaxRetries: 0 },
} as GatewayConfig;

function provider(id: string): ModelProviderEntity {
  return {
    id,
    name: id,
    tenantId: 'acme',
    version: 1,
    apiKeyRef: null,
    baseUrl: 'http://127.0.0.1:1/v1',
  } as ModelProviderEntity;
}

describe('ModelChatClient', () => {
  describe('clients', () => {
    let chat: ModelChatClient;

    beforeEach(() => {
      const outbound = { scope: () => ({ fetch: async () => new Response(null) }) } as unknown as OutboundHttpAgent;
      chat = new ModelChatClient({} as ToolSecretsResolver, outbound, config);
    });

    it(`keeps the clients of the ${MAX_CACHED_MODEL_CLIENTS} providers asked last, not of every provider ever`, async () => {
      // Providers created and deleted on other instances over the weeks: forget() never runs here.
      for (let i = 0; i < MAX_CACHED_MODEL_CLIENTS + 200; i++) await chat['clientFor'](provider(`provider-${i}`));
      expect(chat['clients'].size).toBe(MAX_CACHED_MODEL_CLIENTS);
    });

    it('reuses the client of a provider in use, and builds one again for a provider let go', async () => {
      const busy = await chat['clientFor'](provider('busy'));
      const first = await chat['clientFor'](provider('provider-0'));
      for (let i = 1; i < MAX_CACHED_MODEL_CLIENTS + 200; i++) {
        await chat['clientFor'](provider(`provider-${i}`));
        if (i % 100 === 0) await chat['clientFor'](provider('busy'));
      }
      expect((await chat['clientFor'](provider('busy'))) === busy).toBe(true);
      expect((await chat['clientFor'](provider('provider-0'))) === first).toBe(false);
    });
  });
});
