import { Injectable } from '@nestjs/common';
import type { NacosInstance } from './nacos-naming.adapter';

/**
 * The healthy instances of each Nacos service as last seen, keyed `<namespace>/<group>@<service>`: fed by
 * subscription pushes and by every direct read (sync, repair, executor), so a call does not ask Nacos each
 * time. Pushes never carry an empty list; a direct read does, which is how "all instances gone" arrives here.
 */
@Injectable()
export class NacosInstanceCache {
  private readonly instances = new Map<string, NacosInstance[]>();

  get(key: string): NacosInstance[] | undefined {
    return this.instances.get(key);
  }

  set(key: string, instances: NacosInstance[]): void {
    this.instances.set(key, instances);
  }

  delete(key: string): void {
    this.instances.delete(key);
  }

  /** A stable text of the instance set (ids, weights, metadata) to tell a real change from a repeated push. */
  static fingerprint(instances: readonly NacosInstance[]): string {
    return instances
      .map((i) => `${i.instanceId}|${i.weight}|${JSON.stringify(Object.entries(i.metadata).sort())}`)
      .sort()
      .join('\n');
  }
}
