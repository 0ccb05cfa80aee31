import { Module } from '@nestjs/common';
import { DemoOrdersStore } from './demo-orders.store';
import { DemoOrdersService } from './demo-orders.service';

/**
 * The demo `@FeignTool` order service (in-memory data). The app imports it only when DEMO_TOOLS_ENABLED is
 * true; the feign explorer finds its tools like any other provider's.
 */
@Module({
  providers: [DemoOrdersStore, DemoOrdersService],
})
export class DemoOrdersModule {}
