import { Module } from '@nestjs/common';
import { UserInfoController } from './user-info.controller';
import { UserInfoRepository } from './user-info.repository';
import { UserInfoService } from './user-info.service';
import { UserReadModel } from './user-read-model';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  controllers: [UsersController, UserInfoController],
  providers: [UsersRepository, UserReadModel, UsersService, UserInfoRepository, UserInfoService],
  exports: [UsersRepository, UsersService, UserInfoService],
})
export class UsersModule {}
