import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { HitlRequestEntity } from './requests/hitl-request.entity';
import { HitlRequestsRepository } from './requests/hitl-requests.repository';
import { HitlAdminController } from './requests/hitl-admin.controller';

/** Approval rules and the requests for human decisions (the risk detector is the `risk` module). */
@Module({
  imports: [TypeOrmModule.forFeature([HitlRequestEntity])],
  controllers: [HitlAdminController],
  providers: [HitlRequestsRepository],
  exports: [HitlRequestsRepository],
})
export class HitlModule {}
