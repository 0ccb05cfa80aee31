import { LOCAL_TOOL_METADATA, LocalToolMetadata, LocalToolOptions, LocalToolSource } from './feign-tool.options';

function localToolDecorator(source: LocalToolSource, options: LocalToolOptions): MethodDecorator {
  return (target, key, descriptor) => {
    const method = descriptor.value as unknown;
    if (typeof method !== 'function') {
      throw new Error(
        `@${source === 'FEIGN' ? 'FeignTool' : 'Tool'} must decorate a method (found on ${String(key)}).`,
      );
    }
    const previous = Reflect.getMetadata(LOCAL_TOOL_METADATA, method) as LocalToolMetadata | undefined;
    if (previous) {
      const owner = (target as { constructor?: { name?: string } }).constructor?.name ?? 'a class';
      // Two declarations on one method would register one handler under two names; refuse at class definition.
      throw new Error(`${owner}.${String(key)} carries more than one @Tool/@FeignTool decorator; keep one.`);
    }
    const metadata: LocalToolMetadata = { source, options };
    Reflect.defineMetadata(LOCAL_TOOL_METADATA, metadata, method);
    return descriptor;
  };
}

/**
 * Registers a method of a singleton Nest provider as a local built-in tool (`source: BUILTIN`,
 * `serviceType: LOCAL`, endpoint `"Provider.method"`). At start-up the explorer validates it and the
 * reconciler upserts it into `ai_tool` (platform-wide). The method is called with the validated arguments
 * object and a {@link LocalToolContext}; a string result is the content, anything else is sent as JSON.
 *
 * @example
 * ```ts
 * @Tool({ description: 'Adds two numbers.', sideEffect: 'READ_ONLY',
 *         parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } })
 * add({ a, b }: { a: number; b: number }) { return String(a + b); }
 * ```
 */
export function Tool(options: LocalToolOptions): MethodDecorator {
  return localToolDecorator('BUILTIN', options);
}

/**
 * Registers a method of a singleton Nest provider as a Feign tool (`source: FEIGN`, `serviceType: FEIGN`,
 * endpoint `"Provider.method"`): how a service team exposes an internal service call to agents.
 * Being registered does not make it callable: an admin binds it to agents. After a decorator changes, the
 * row is reconciled without dropping what an admin changed (`enabled`, `timeoutMs`, `permissionTags`);
 * `GET /api/v1/admin/feign/tools` reports the drift.
 *
 * @example
 * ```ts
 * @FeignTool({ description: 'Looks up an order by id.', sideEffect: 'READ_ONLY', parameters: GetOrderDto })
 * getOrder(args: GetOrderDto, ctx: LocalToolContext) { ... }   // registered as "get_order"
 * ```
 */
export function FeignTool(options: LocalToolOptions): MethodDecorator {
  return localToolDecorator('FEIGN', options);
}
