import { RouteConfig } from '@nestjs/platform-fastify';

/**
 * Marks a route that takes bodies beyond BODY_LIMIT_BYTES (health-data ingestion: tens of
 * thousands of samples per request); src/common/http-app.ts gives such routes
 * HEALTH_DATA_BODY_LIMIT_BYTES instead.
 */
export const LargeBody = () => RouteConfig({ largeBody: true });
