import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { DEMO_ORDER_STATUSES, type DemoOrderStatus } from './demo-orders.store';

/** Arguments of `list_orders_by_customer`: a DTO class the scanner turns into the tool's JSON Schema. */
export class ListOrdersByCustomerDto {
  @ApiProperty({ description: 'The customer id, e.g. c-100', example: 'c-100' })
  @IsString()
  @Matches(/^c-\d+$/)
  customerId: string;

  @ApiPropertyOptional({ enum: DEMO_ORDER_STATUSES, description: 'Only orders in this status' })
  @IsOptional()
  @IsIn(DEMO_ORDER_STATUSES)
  status?: DemoOrderStatus;

  @ApiPropertyOptional({ description: 'At most this many orders (default 10)' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  limit?: number;
}

/** Arguments of `cancel_order`. */
export class CancelOrderDto {
  @ApiProperty({ description: 'The order id, e.g. o-1003', example: 'o-1003' })
  @IsString()
  @Matches(/^o-\d+$/)
  orderId: string;

  @ApiProperty({ description: 'Why the customer wants it cancelled (kept on the order)' })
  @IsString()
  @Length(1, 500)
  reason: string;
}
