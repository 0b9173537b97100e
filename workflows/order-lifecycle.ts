/**
 * The pure order tables in one import for src/ and the tests: statuses and flows
 * (workflows/order/order-statuses.ts) and the lifecycle with its state questions
 * (workflows/order/order-lifecycle.ts).
 */
export * from './order/order-statuses';
export * from './order/order-lifecycle';
