/**
 * The workflow-safe contract shared by workflows/, activities/ and src/: workflow ids, search
 * attributes, signal/update/query definitions, failure types and input/output types, one file per
 * domain. Only workflow-safe imports are allowed here (no Node, no Nest, nothing from src/).
 */
export * from './ids';
export * from './users';
export * from './events';
export * from './orders';
export * from './appointments';
export * from './reminders';
export * from './lab-reports';
export * from './request-id';
export * from './connections';
export * from './link-bulk-ops';
export * from './fhir-exports';
export * from './sandbox-partners';
