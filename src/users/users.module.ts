import { Module } from '@nestjs/common';
import { UserReadModel } from './user-read-model';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  controllers: [UsersController],
  providers: [UsersRepository, UserReadModel, UsersService],
  exports: [UsersRepository, UsersService],
})
export class UsersModule {}
