export * from './sandbox-callbacks';
export * from './sandbox-callback.processor';
export * from './partner-webhook-client';
