import { Injectable } from '@nestjs/common';

export const DEMO_ORDER_STATUSES = ['PLACED', 'SHIPPED', 'DELIVERED', 'CANCELLED'] as const;
export type DemoOrderStatus = (typeof DEMO_ORDER_STATUSES)[number];

export interface DemoOrder {
  orderId: string;
  customerId: string;
  status: DemoOrderStatus;
  items: Array<{ sku: string; name: string; quantity: number; unitPrice: number }>;
  total: number;
  currency: string;
  createdAt: string;
  cancelledAt?: string;
  cancelReason?: string;
}

const SAMPLE: ReadonlyArray<Omit<DemoOrder, 'total'>> = [
  {
    orderId: 'o-1001',
    customerId: 'c-100',
    status: 'DELIVERED',
    currency: 'EUR',
    createdAt: '2025-01-05T09:30:00.000Z',
    items: [{ sku: 'BK-7', name: 'Notebook', quantity: 3, unitPrice: 4.5 }],
  },
  {
    orderId: 'o-1002',
    customerId: 'c-100',
    status: 'SHIPPED',
    currency: 'EUR',
    createdAt: '2025-02-11T14:02:00.000Z',
    items: [{ sku: 'PN-2', name: 'Fountain pen', quantity: 1, unitPrice: 39 }],
  },
  {
    orderId: 'o-1003',
    customerId: 'c-100',
    status: 'PLACED',
    currency: 'EUR',
    createdAt: '2025-03-01T08:15:00.000Z',
    items: [
      { sku: 'IN-9', name: 'Ink, blue', quantity: 2, unitPrice: 6.25 },
      { sku: 'BK-7', name: 'Notebook', quantity: 1, unitPrice: 4.5 },
    ],
  },
  {
    orderId: 'o-2001',
    customerId: 'c-200',
    status: 'PLACED',
    currency: 'USD',
    createdAt: '2025-03-02T17:45:00.000Z',
    items: [{ sku: 'LP-1', name: 'Desk lamp', quantity: 1, unitPrice: 54.9 }],
  },
];

/**
 * The demo's order data, in memory. Each tenant gets its own copy of the sample orders on first use, so a
 * cancellation in one tenant is invisible to the others (tools scope data by the caller's tenant).
 */
@Injectable()
export class DemoOrdersStore {
  private readonly byTenant = new Map<string, Map<string, DemoOrder>>();

  orders(tenantId: string | null): Map<string, DemoOrder> {
    const key = tenantId ?? '*';
    let orders = this.byTenant.get(key);
    if (!orders) {
      orders = new Map(SAMPLE.map((o) => [o.orderId, { ...structuredClone(o), total: totalOf(o.items) }]));
      this.byTenant.set(key, orders);
    }
    return orders;
  }
}

function totalOf(items: DemoOrder['items']): number {
  return Math.round(items.reduce((sum, i) => sum + i.quantity * i.unitPrice, 0) * 100) / 100;
}
