import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Observable } from 'rxjs';
import { runWithRequestId } from './request-context';

/**
 * Runs every route handler with its request's id (Fastify's `request.id`, see http-app.ts) in
 * the request context, so the workflows it starts and the events it writes carry that id.
 */
@Injectable()
export class RequestIdInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const requestId = context.switchToHttp().getRequest<{ id?: unknown }>()?.id;
    if (typeof requestId !== 'string') return next.handle();
    // Subscribing inside the context is what calls the handler, so everything it awaits inherits it.
    return new Observable((subscriber) => runWithRequestId(requestId, () => next.handle().subscribe(subscriber)));
  }
}
