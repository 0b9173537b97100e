import { Module } from '@nestjs/common';
import { UserInfoController } from './user-info.controller';
import { UserInfoRepository } from './user-info.repository';
import { UserInfoService } from './user-info.service';
import { UserReadModel } from './user-read-model';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';
import { SdkSessionsRepository } from './sdk-sessions.repository';

@Module({
  controllers: [UsersController, UserInfoController],
  providers: [UsersRepository, SdkSessionsRepository, UserReadModel, UsersService, UserInfoRepository, UserInfoService],
  exports: [UsersRepository, SdkSessionsRepository, UsersService, UserInfoService],
})
export class UsersModule {}
