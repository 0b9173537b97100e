export * from './sandbox-callbacks';
export * from './sandbox-callback.processor';
