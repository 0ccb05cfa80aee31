import { Module } from '@nestjs/common';
import { ExecutorsModule } from '@app/modules/executors/executors.module';
import { WebSearchDispatcher } from './web-search.dispatcher';

/** Platform web search: a dispatcher on the call path, governed by the capability policy. */
@Module({
  imports: [ExecutorsModule],
  providers: [WebSearchDispatcher],
})
export class WebSearchModule {}
