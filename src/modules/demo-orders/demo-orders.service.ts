import { Injectable } from '@nestjs/common';
import { FeignTool } from '@app/modules/feign-registration/feign-tool.decorator';
import type { LocalToolContext } from '@app/modules/feign-registration/feign-tool.types';
import { DemoOrder, DemoOrdersStore } from './demo-orders.store';
import { CancelOrderDto, ListOrdersByCustomerDto } from './demo-orders.dto';

/**
 * A small order service exposed to agents with `@FeignTool`, to show the mechanism: started with
 * DEMO_TOOLS_ENABLED=true, its three methods appear in GET /api/v1/admin/tools (source FEIGN) and in
 * GET /api/v1/admin/feign/tools; bind them to an agent to let a model call them.
 */
@Injectable()
export class DemoOrdersService {
  constructor(private readonly store: DemoOrdersStore) {}

  @FeignTool({
    description: 'Looks up one order by its id: status, items, total and creation date.',
    sideEffect: 'READ_ONLY',
    parameters: {
      type: 'object',
      properties: { orderId: { type: 'string', pattern: '^o-\\d+$', description: 'The order id, e.g. o-1001' } },
      required: ['orderId'],
      additionalProperties: false,
    },
    timeoutMs: 5000,
    tags: ['demo', 'orders'],
  })
  getOrder(args: { orderId: string }, ctx: LocalToolContext): DemoOrder {
    return this.find(args.orderId, ctx);
  }

  @FeignTool({
    description: "Lists a customer's orders, newest first; optionally only those in one status.",
    sideEffect: 'READ_ONLY',
    parameters: ListOrdersByCustomerDto,
    tags: ['demo', 'orders'],
  })
  listOrdersByCustomer(
    args: ListOrdersByCustomerDto,
    ctx: LocalToolContext,
  ): { customerId: string; orders: DemoOrder[] } {
    const orders = [...this.store.orders(ctx.tenantId).values()]
      .filter((o) => o.customerId === args.customerId && (!args.status || o.status === args.status))
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, args.limit ?? 10);
    return { customerId: args.customerId, orders };
  }

  @FeignTool({
    description:
      'Cancels an order that has not shipped yet and refunds the customer. Cancelling an already cancelled order changes nothing.',
    sideEffect: 'SIDE_EFFECT',
    parameters: CancelOrderDto,
    permissionTags: ['orders:write'],
    tags: ['demo', 'orders'],
    hitl: {
      approvalText: 'The agent wants to cancel this order: its shipment stops and the customer is refunded.',
      rejectPolicy: 'RETURN_ERROR',
    },
  })
  cancelOrder(args: CancelOrderDto, ctx: LocalToolContext): string {
    const order = this.find(args.orderId, ctx);
    if (order.status === 'CANCELLED') return `Order ${order.orderId} was already cancelled on ${order.cancelledAt}.`;
    if (order.status !== 'PLACED')
      throw new Error(
        `Order ${order.orderId} is ${order.status} and can no longer be cancelled; start a return instead.`,
      );
    order.status = 'CANCELLED';
    order.cancelledAt = new Date().toISOString();
    order.cancelReason = args.reason;
    return `Order ${order.orderId} is cancelled; ${order.total} ${order.currency} will be refunded.`;
  }

  private find(orderId: string, ctx: LocalToolContext): DemoOrder {
    const order = this.store.orders(ctx.tenantId).get(orderId);
    if (!order)
      throw new Error(`No order ${orderId}; list the customer's orders with list_orders_by_customer to find its id.`);
    return order;
  }
}
