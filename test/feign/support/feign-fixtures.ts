import { Injectable, Scope } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { FeignTool, Tool } from '@app/modules/feign-registration/feign-tool.decorator';
import type { LocalToolContext } from '@app/modules/feign-registration/feign-tool.types';
import { ToolCallError } from '@app/modules/executors/tool-executor';

const ORDER_ID = {
  type: 'object',
  properties: { orderId: { type: 'string' } },
  required: ['orderId'],
  additionalProperties: false,
};

export class SearchOrdersDto {
  @ApiProperty({ description: 'The customer' }) @IsString() customerId: string;
  @ApiPropertyOptional({ enum: ['OPEN', 'CLOSED'] }) @IsOptional() @IsIn(['OPEN', 'CLOSED']) status?: string;
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(1) @Max(20) limit?: number;
}

/**
 * Version 1 of a service team's provider: a default name, an explicit name with a DTO schema, a method
 * that fails, one that fails transiently on purpose. Each call returns a fresh class named OrdersService,
 * so versions 1 and 2 share endpoints as one class edited between two deployments would.
 */
export function ordersServiceV1() {
  @Injectable()
  class OrdersService {
    @FeignTool({
      description: 'Looks up an order.',
      sideEffect: 'READ_ONLY',
      parameters: ORDER_ID,
      timeoutMs: 1000,
      permissionTags: ['orders:read'],
    })
    getOrder(args: { orderId: string }, ctx: LocalToolContext) {
      return {
        orderId: args.orderId,
        toolCallId: ctx.toolCallId,
        tenantId: ctx.tenantId,
        userId: ctx.userId,
        hasSignal: ctx.signal instanceof AbortSignal,
      };
    }

    @FeignTool({
      name: 'orders-search',
      description: 'Searches orders of a customer.',
      sideEffect: 'READ_ONLY',
      parameters: SearchOrdersDto,
    })
    searchOrders(args: SearchOrdersDto) {
      return `orders of ${args.customerId}`;
    }

    @FeignTool({ description: 'Ships an order.', sideEffect: 'SIDE_EFFECT', parameters: ORDER_ID })
    shipOrder(args: { orderId: string }): never {
      throw new Error(`warehouse offline while shipping ${args.orderId}`);
    }

    @FeignTool({ description: 'Reserves stock.', sideEffect: 'IDEMPOTENT', parameters: ORDER_ID })
    reserveStock(): never {
      throw new ToolCallError('stock service busy', 'STOCK_BUSY', { transient: true, reachedRemote: false });
    }
  }
  return OrdersService;
}

/** Version 2: getOrder's declaration changed, searchOrders removed, the rest as in version 1. */
export function ordersServiceV2() {
  @Injectable()
  class OrdersService {
    @FeignTool({
      description: 'Looks up an order with its items.',
      sideEffect: 'IDEMPOTENT',
      parameters: ORDER_ID,
      timeoutMs: 2000,
      permissionTags: ['orders:read', 'orders:items'],
      tags: ['v2'],
    })
    getOrder(args: { orderId: string }) {
      return { orderId: args.orderId, items: [] };
    }

    @FeignTool({ description: 'Ships an order.', sideEffect: 'SIDE_EFFECT', parameters: ORDER_ID })
    shipOrder(): string {
      return 'shipped';
    }

    @FeignTool({ description: 'Reserves stock.', sideEffect: 'IDEMPOTENT', parameters: ORDER_ID })
    reserveStock(): string {
      return 'reserved';
    }
  }
  return OrdersService;
}

/** A built-in tool declared with @Tool (source BUILTIN, serviceType LOCAL). */
@Injectable()
export class CalculatorTools {
  @Tool({
    description: 'Adds two numbers.',
    sideEffect: 'READ_ONLY',
    parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  })
  addNumbers(args: { a: number; b: number }): string {
    return String(args.a + args.b);
  }
}

@Injectable({ scope: Scope.REQUEST })
export class RequestScopedTools {
  @FeignTool({ description: 'Per request.', sideEffect: 'READ_ONLY', parameters: { type: 'object' } })
  perRequest(): string {
    return 'never registered';
  }
}

@Injectable({ scope: Scope.TRANSIENT })
export class TransientTools {
  @FeignTool({ description: 'Per consumer.', sideEffect: 'READ_ONLY', parameters: { type: 'object' } })
  perConsumer(): string {
    return 'never registered';
  }
}

@Injectable()
export class AlphaService {
  @FeignTool({ name: 'lookup', description: 'Alpha lookup.', sideEffect: 'READ_ONLY', parameters: { type: 'object' } })
  lookup(): string {
    return 'alpha';
  }
}

@Injectable()
export class BetaService {
  @FeignTool({ name: 'lookup', description: 'Beta lookup.', sideEffect: 'READ_ONLY', parameters: { type: 'object' } })
  find(): string {
    return 'beta';
  }
}

/** Declares "LOOKUP": the same name as AlphaService's "lookup" in another case. */
@Injectable()
export class ShoutingService {
  @FeignTool({
    name: 'LOOKUP',
    description: 'Shouting lookup.',
    sideEffect: 'READ_ONLY',
    parameters: { type: 'object' },
  })
  find(): string {
    return 'shouting';
  }
}

@Injectable()
export class BadSchemaService {
  @FeignTool({ description: 'Takes a bare string.', sideEffect: 'READ_ONLY', parameters: { type: 'string' } })
  takesString(): string {
    return 'x';
  }
}
