import { Logger, type Provider } from '@nestjs/common';
import { GATEWAY_CONFIG, type GatewayConfig } from '@app/config/gateway-config';
import { NACOS_NAMING, NacosNamingAdapter, type NacosNamingPort } from './nacos-naming.adapter';

/** Thrown by the naming port when NACOS_SERVER_ADDR is empty. */
export class NacosDisabledError extends Error {
  override readonly name = 'NacosDisabledError';
  constructor() {
    super(
      'Nacos discovery is off: NACOS_SERVER_ADDR is empty. Set it (host:port) and restart, or register the service as STATIC with its URL.',
    );
  }
}

/** The naming port of a gateway without Nacos: every lookup fails with {@link NacosDisabledError}. */
class DisabledNacosNaming implements NacosNamingPort {
  getHealthyInstances(): Promise<never> {
    return Promise.reject(new NacosDisabledError());
  }
  subscribe(): () => void {
    return () => undefined;
  }
  async close(): Promise<void> {}
}

/** Whether the port talks to a Nacos server (false when NACOS_SERVER_ADDR is empty). */
export function isNacosEnabled(naming: NacosNamingPort): boolean {
  return !(naming instanceof DisabledNacosNaming);
}

/** {@link NACOS_NAMING}: the adapter over the `nacos` client when NACOS_SERVER_ADDR is set; closed at shutdown. */
export const NACOS_NAMING_PROVIDER: Provider = {
  provide: NACOS_NAMING,
  inject: [GATEWAY_CONFIG],
  useFactory: (config: GatewayConfig): NacosNamingPort => {
    const { serverAddr, namespace, username, password } = config.nacos;
    if (!serverAddr) return new DisabledNacosNaming();
    return new NacosNamingAdapter({ serverAddr, namespace, username, password, logger: new Logger('Nacos') });
  },
};
