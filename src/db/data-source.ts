import 'reflect-metadata';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { PhiAccessLogEntity } from '../common/phi-access-log.entity';
import { InsuranceEntity, PayorEntity } from '../insurance/insurance.entity';
import { ManagementKeyEntity, OrgEntity, TeamApiKeyEntity, TeamEntity } from '../tenancy/entities';
import { UserEntity } from '../users/user.entity';
import { CustomCredentialEntity } from '../management/custom-credentials/custom-credential.entity';
import { EtlPipelineEntity } from '../management/etl-pipelines/etl-pipeline.entity';
import { WebhookEndpointEntity } from '../management/webhooks/webhook-endpoint.entity';
import { Foundation1763790000000 } from './migrations/1763790000000-foundation';
import { PayorRegistry1763790000001 } from './migrations/1763790000001-payor-registry';
import { Management1763790001000 } from './migrations/1763790001000-management';
import { LabCatalog1763790002000 } from './migrations/1763790002000-lab-catalog';
import { LabCatalogSeed1763790002001 } from './migrations/1763790002001-lab-catalog-seed';
import { LAB_CATALOG_ENTITIES } from '../lab-tests/lab-catalog.entities';
import { Events1763790003000 } from './migrations/1763790003000-events';
import { Orders1763790004000 } from './migrations/1763790004000-orders';
import { Appointments1763790005000 } from './migrations/1763790005000-appointments';
import { DelegatedTestkits1763790006000 } from './migrations/1763790006000-delegated-testkits';
import { Retention1763790007000 } from './migrations/1763790007000-retention';
import { StrandedOrders1763790008000 } from './migrations/1763790008000-stranded-orders';
import { HealthData1763790009000 } from './migrations/1763790009000-health-data';
import { Portal1763790140000 } from './migrations/1763790140000-portal';
import { OutboxTraceParent1763790150700 } from './migrations/1763790150700-outbox-trace-parent';
import { OutboxRequestId1763790151100 } from './migrations/1763790151100-outbox-request-id';
import { ApiKeyRevocationNotify1763790152000 } from './migrations/1763790152000-api-key-revocation-notify';
import { OrderReminders1763790152400 } from './migrations/1763790152400-order-reminders';
import { EventBatches1763790165000 } from './migrations/1763790165000-event-batches';
import { ProviderConnections1763790170000 } from './migrations/1763790170000-provider-connections';
import { HealthSeries1763790180000 } from './migrations/1763790180000-health-series';
import { EventBatchItemsBinary1763790190000 } from './migrations/1763790190000-event-batch-items-binary';
import { DeliveryUnfinishedAttempt1763790200000 } from './migrations/1763790200000-delivery-unfinished-attempt';
import { ConnectionErrors1763790210000 } from './migrations/1763790210000-connection-errors';
import { VitaminDTotalLoinc1763790220000 } from './migrations/1763790220000-vitamin-d-total-loinc';
import { DeliveryPipelineUniquePartial1763790230000 } from './migrations/1763790230000-delivery-pipeline-unique-partial';
import { OrderHealthInsurances1763790240000 } from './migrations/1763790240000-order-health-insurances';
import { OrderRequisitionInputs1763790250000 } from './migrations/1763790250000-order-requisition-inputs';
import { OnSiteCollectionTest1763790260000 } from './migrations/1763790260000-on-site-collection-test';
import { UserInfos1763790270000 } from './migrations/1763790270000-user-infos';
import { CollectionInstructionsEverywhere1763790280000 } from './migrations/1763790280000-collection-instructions-everywhere';
import { TeamPayors1763790290000 } from './migrations/1763790290000-team-payors';
import { LabCliaNumbers1763790300000 } from './migrations/1763790300000-lab-clia-numbers';
import { MarkerAoeQuestions1763790310000 } from './migrations/1763790310000-marker-aoe-questions';
import { OrderNotes1763790320000 } from './migrations/1763790320000-order-notes';
import { LinkTokens1763790330000 } from './migrations/1763790330000-link-tokens';
import { PushConnections1763790340000 } from './migrations/1763790340000-push-connections';
import { ConnectionCredentials1763790350000 } from './migrations/1763790350000-connection-credentials';
import { LinkMigration1763790360000 } from './migrations/1763790360000-link-migration';
import { LinkBulkOpCounts1763790370000 } from './migrations/1763790370000-link-bulk-op-counts';
import { LinkBulkOpKeys1763790380000 } from './migrations/1763790380000-link-bulk-op-keys';
import { ConnectionExternalUsers1763790390000 } from './migrations/1763790390000-connection-external-users';
import { ContinuousQueries1763790400000 } from './migrations/1763790400000-continuous-queries';
import { IdempotencyAnswersSealed1763790410000 } from './migrations/1763790410000-idempotency-answers-sealed';
import { UserBirthDatesSealed1763790411000 } from './migrations/1763790411000-user-birth-dates-sealed';
import { DeliveryResponsesSealed1763790412000 } from './migrations/1763790412000-delivery-responses-sealed';
import { LabReportReviewReason1763790450000 } from './migrations/1763790450000-lab-report-review-reason';
import { PhiAccessOperators1763790540000 } from './migrations/1763790540000-phi-access-operators';
import { OrderResultCorrections1763790541000 } from './migrations/1763790541000-order-result-corrections';
import { LabReportRejection1763790620000 } from './migrations/1763790620000-lab-report-rejection';
import { DeliveryAttemptKey1763790700000 } from './migrations/1763790700000-delivery-attempt-key';
import { MobileSignIn1763790750000 } from './migrations/1763790750000-mobile-sign-in';
import { Hl7ReceivedIndex1763790720000 } from './migrations/1763790720000-hl7-received-index';
import { DeliveryFillfactor1763790600000 } from './migrations/1763790600000-delivery-fillfactor';
import { DeliveryFirstAttemptInline1763790601000 } from './migrations/1763790601000-delivery-first-attempt-inline';
import { TimeOrderedIds1763790602000 } from './migrations/1763790602000-time-ordered-ids';
import { FhirExports1763790740000 } from './migrations/1763790740000-fhir-exports';
import { PartnerWebhookReceipts1763790800000 } from './migrations/1763790800000-partner-webhook-receipts';
import { SandboxHl7LabOutbox1763791100000 } from './migrations/1763791100000-sandbox-hl7-lab-outbox';
import { Hl7MatchKeys1763791700000 } from './migrations/1763791700000-hl7-match-keys';
import { SdkSyncReports1763791600000 } from './migrations/1763791600000-sdk-sync-reports';
import { WebhookPortalSessions1763791750000 } from './migrations/1763791750000-webhook-portal-sessions';
import { Hl7ReceivedByArrival1763791764000 } from './migrations/1763791764000-hl7-received-by-arrival';
import { HaemoglobinSiLoinc1763791765000 } from './migrations/1763791765000-haemoglobin-si-loinc';
import { HaemoglobinopathyMalariaLoinc1763791766000 } from './migrations/1763791766000-haemoglobinopathy-malaria-loinc';
import { OrderClinicalDataSealed1763790500000 } from './migrations/1763790500000-order-clinical-data-sealed';
import { PortalCredentialsAtRest1763790501000 } from './migrations/1763790501000-portal-credentials-at-rest';
import { Hl7Labs1763790420000 } from './migrations/1763790420000-hl7-labs';
import { HL7_ENTITIES } from '../hl7/hl7.entities';
import { ORDER_ENTITIES } from '../orders/order.entities';
import { LAB_REPORT_ENTITIES } from '../lab-reports/lab-report.entities';
import { LabReports1763790120000 } from './migrations/1763790120000-lab-reports';
import { LoincCatalogueAliases1763790130000 } from './migrations/1763790130000-loinc-catalogue-aliases';
import { LoincCatalogueVerified1763790160000 } from './migrations/1763790160000-loinc-catalogue-verified';

/** Every entity, listed explicitly so ts-node, Jest and compiled JS all see the same set. */
export const ENTITIES = [
  OrgEntity,
  TeamEntity,
  TeamApiKeyEntity,
  ManagementKeyEntity,
  UserEntity,
  InsuranceEntity,
  PayorEntity,
  PhiAccessLogEntity,
  WebhookEndpointEntity,
  EtlPipelineEntity,
  CustomCredentialEntity,
  ...LAB_CATALOG_ENTITIES,
  ...ORDER_ENTITIES,
  ...LAB_REPORT_ENTITIES,
  ...HL7_ENTITIES,
];

/** Every migration in order. The schema only ever changes through these (never `synchronize`). */
export const MIGRATIONS = [
  Foundation1763790000000,
  PayorRegistry1763790000001,
  Management1763790001000,
  LabCatalog1763790002000,
  LabCatalogSeed1763790002001,
  Events1763790003000,
  Orders1763790004000,
  Appointments1763790005000,
  DelegatedTestkits1763790006000,
  Retention1763790007000,
  StrandedOrders1763790008000,
  HealthData1763790009000,
  LabReports1763790120000,
  LoincCatalogueAliases1763790130000,
  Portal1763790140000,
  OutboxTraceParent1763790150700,
  OutboxRequestId1763790151100,
  ApiKeyRevocationNotify1763790152000,
  OrderReminders1763790152400,
  LoincCatalogueVerified1763790160000,
  EventBatches1763790165000,
  ProviderConnections1763790170000,
  HealthSeries1763790180000,
  EventBatchItemsBinary1763790190000,
  DeliveryUnfinishedAttempt1763790200000,
  ConnectionErrors1763790210000,
  VitaminDTotalLoinc1763790220000,
  DeliveryPipelineUniquePartial1763790230000,
  OrderHealthInsurances1763790240000,
  OrderRequisitionInputs1763790250000,
  OnSiteCollectionTest1763790260000,
  UserInfos1763790270000,
  CollectionInstructionsEverywhere1763790280000,
  TeamPayors1763790290000,
  LabCliaNumbers1763790300000,
  MarkerAoeQuestions1763790310000,
  OrderNotes1763790320000,
  LinkTokens1763790330000,
  PushConnections1763790340000,
  ConnectionCredentials1763790350000,
  LinkMigration1763790360000,
  LinkBulkOpCounts1763790370000,
  LinkBulkOpKeys1763790380000,
  ConnectionExternalUsers1763790390000,
  ContinuousQueries1763790400000,
  IdempotencyAnswersSealed1763790410000,
  UserBirthDatesSealed1763790411000,
  DeliveryResponsesSealed1763790412000,
  Hl7Labs1763790420000,
  LabReportReviewReason1763790450000,
  OrderClinicalDataSealed1763790500000,
  PortalCredentialsAtRest1763790501000,
  PhiAccessOperators1763790540000,
  OrderResultCorrections1763790541000,
  DeliveryFillfactor1763790600000,
  DeliveryFirstAttemptInline1763790601000,
  TimeOrderedIds1763790602000,
  LabReportRejection1763790620000,
  DeliveryAttemptKey1763790700000,
  Hl7ReceivedIndex1763790720000,
  FhirExports1763790740000,
  MobileSignIn1763790750000,
  PartnerWebhookReceipts1763790800000,
  SandboxHl7LabOutbox1763791100000,
  SdkSyncReports1763791600000,
  Hl7MatchKeys1763791700000,
  WebhookPortalSessions1763791750000,
  Hl7ReceivedByArrival1763791764000,
  HaemoglobinSiLoinc1763791765000,
  HaemoglobinopathyMalariaLoinc1763791766000,
];

/**
 * `poolMax`: connections this process may open (DATABASE_POOL_MAX). Every process of every
 * replica adds its own, beside Temporal's: together they must stay under Postgres's
 * max_connections (README "Environment variables").
 */
export function dataSourceOptions(databaseUrl: string, poolMax = 20): DataSourceOptions {
  return {
    type: 'postgres',
    url: databaseUrl,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    // Query failures surface as exceptions (logged by the error filter when unexpected); TypeORM's
    // own logging would also print the unique violations labflow expects and handles.
    logging: false,
    extra: {
      max: poolMax,
      // Safety nets against a connection held forever: waiting longer than this for one of the
      // pool fails the caller (a transaction then rolls back and its activity retries) instead of
      // hanging, and Postgres ends a session left idle inside a transaction, freeing its locks.
      connectionTimeoutMillis: 30_000,
      idle_in_transaction_session_timeout: 60_000,
    },
  };
}

export function createDataSource(databaseUrl: string, poolMax?: number): DataSource {
  return new DataSource(dataSourceOptions(databaseUrl, poolMax));
}
