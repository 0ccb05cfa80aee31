import { Injectable } from '@nestjs/common';
import type { ServiceType, ToolDescriptor } from '@app/modules/tool-registry/tool-registry.types';
import type { ToolExecutor } from '../tool-executor';
import type { ToolCallContext, ToolDispatcher } from './tool-call.types';

/**
 * Where a call goes: dispatchers (in priority order) first, then the executor of the tool's serviceType.
 * Feature modules register their executors and dispatchers at init, so this module imports none of them.
 */
@Injectable()
export class CallTargetRegistry {
  private readonly executors = new Map<ServiceType, ToolExecutor>();
  private dispatchers: ToolDispatcher[] = [];

  registerExecutor(executor: ToolExecutor): void {
    this.executors.set(executor.serviceType, executor);
  }

  registerDispatcher(dispatcher: ToolDispatcher): void {
    this.dispatchers = [...this.dispatchers.filter((d) => d.name !== dispatcher.name), dispatcher].sort(
      (a, b) => a.priority - b.priority,
    );
  }

  dispatcherFor(tool: ToolDescriptor, ctx: ToolCallContext): ToolDispatcher | undefined {
    return this.dispatchers.find((d) => d.handles(tool, ctx));
  }

  executorFor(serviceType: ServiceType): ToolExecutor | undefined {
    return this.executors.get(serviceType);
  }
}
