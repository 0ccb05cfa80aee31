import { pickWeighted } from './nacos-instance-endpoint';
import type { NacosInstance } from './nacos-naming.adapter';

/**
 * The eligible instances (healthy, enabled, weight > 0) in the order to try them: each next one picked by
 * weight among those not tried yet, so the first is the weighted choice and the rest are the failover order.
 */
export function weightedOrder<T extends Pick<NacosInstance, 'weight' | 'healthy' | 'enabled'>>(
  instances: readonly T[],
  random: () => number = Math.random,
): T[] {
  const left = [...instances];
  const order: T[] = [];
  for (let next = pickWeighted(left, random); next; next = pickWeighted(left, random)) {
    order.push(next);
    left.splice(left.indexOf(next), 1);
  }
  return order;
}
