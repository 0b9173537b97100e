// eslint-disable-next-line no-restricted-imports -- the one place Nest's decorators are wrapped
import { Body as NestBody, Param as NestParam, Query as NestQuery } from '@nestjs/common';
import { ZodRequestPipe } from './validation';

/*
 * Nest's @Body, @Query and @Param with labflow's request pipe (ZodRequestPipe) scoped to the
 * parameter. The pipe is not global: Nest runs global pipes over every pipeable parameter of every
 * request, custom decorators included (@CurrentTeam, @CurrentManagementKey), each an async chain
 * of its own that finds nothing to do. Controllers take these from here, never Nest's (the lint
 * forbids them), so every body, query and path parameter is still validated.
 */

/** The request body (or one property of it), validated by ZodRequestPipe. */
export const Body = (property?: string): ParameterDecorator => (property === undefined ? NestBody(ZodRequestPipe) : NestBody(property, ZodRequestPipe));

/** The query string (or one parameter of it), validated by ZodRequestPipe. */
export const Query = (property?: string): ParameterDecorator => (property === undefined ? NestQuery(ZodRequestPipe) : NestQuery(property, ZodRequestPipe));

/** The path parameters (or one of them), validated by ZodRequestPipe. */
export const Param = (property?: string): ParameterDecorator => (property === undefined ? NestParam(ZodRequestPipe) : NestParam(property, ZodRequestPipe));
