export { renderRequisitionPdf } from './requisition-pdf';
export { MAX_ORDER_CLINICAL_NOTES_LENGTH, requisitionComment } from './requisition-comment';
export { code128BValues, code128BWidths } from './code128';
export * from './requisition.types';
