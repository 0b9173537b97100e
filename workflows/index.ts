// The worker's workflowsPath: every workflow type labflow registers.
export { userDeletionWorkflow } from './user-deletion';
export { orderWorkflow } from './order/order-workflow';
export { orderWorkflowV2 } from './order/order-workflow-v2';
export { sandboxPartnersWorkflow } from './sandbox-partners/sandbox-partners-workflow';
export { appointmentWorkflow } from './appointment/appointment-workflow';
export { appointmentWorkflowV2 } from './appointment/appointment-workflow-v2';
export { labReportWorkflow } from './lab-report/lab-report-workflow';
export { connectionWorkflow } from './connection/connection-workflow';
export { linkBulkOpWorkflow } from './link-bulk-op/link-bulk-op-workflow';
export { fhirExportWorkflow } from './fhir-export/fhir-export-workflow';
