/** What Temporal knows labflow's workflows by: workflow ids and the search attributes ops filter on. */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Keyword search attributes registered on the dev server (scripts/stack.sh) for ops to filter by. */
export const SEARCH_ATTRIBUTES = {
  teamId: defineSearchAttributeKey('LabflowTeamId', SearchAttributeType.KEYWORD),
  orderStatus: defineSearchAttributeKey('LabflowOrderStatus', SearchAttributeType.KEYWORD),
  collectionMethod: defineSearchAttributeKey('LabflowCollectionMethod', SearchAttributeType.KEYWORD),
  lab: defineSearchAttributeKey('LabflowLab', SearchAttributeType.KEYWORD),
  /** A lab report parsing job's status (started, pending_review, completed, failed). */
  labReportStatus: defineSearchAttributeKey('LabflowLabReportStatus', SearchAttributeType.KEYWORD),
} as const;

export const userDeletionWorkflowId = (userId: string) => `user-deletion:${userId}`;

export const orderWorkflowId = (orderId: string) => `order:${orderId}`;

/** Each appointment is a child workflow of its order; `n` counts the order's appointments from 1. */
export const appointmentWorkflowId = (orderId: string, n: number) => `order:${orderId}:appointment:${n}`;
