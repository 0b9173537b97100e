// The floor bench:reads measures labflow against (bench/reads/bare-server.mjs serves it on a port;
// bench/reads/pipeline-cpu.mjs answers it through inject beside the API): the least work that
// answers each measured route with the very bytes labflow answers (bench/reads/run.ts checks that
// they are equal before it measures). Bare Fastify and pg run the statement the route runs
// (`statements`, from run.ts) with the same parameters, open the same sealed columns with
// labflow's PhiCipher, sign the requisition link with labflow's RequisitionLinks, and shape the
// same JSON with labflow's own small view functions where it has them (the user object, the lab
// test), by hand from the row where it has none that works on a row (the order). No auth, no
// audit, no request log, no metrics, no framework pipeline, no ORM. Plain JavaScript on node, as
// labflow's API runs from dist/ (no ts-node in either: its REPL support loads node:domain, whose
// async hooks tax every promise).
import { createRequire } from 'node:module';

// fastify is labflow's through @nestjs/platform-fastify; pg is a direct dependency.
const require = createRequire(import.meta.url);
const Fastify = require(require.resolve('fastify', { paths: [require.resolve('@nestjs/platform-fastify')] }));
const pg = require('pg');
require('reflect-metadata');
const { PhiCipher } = require('../../dist/src/common/crypto.js');
const { RequisitionLinks } = require('../../dist/src/requisitions/requisition-links.js');
const { userFromRow } = require('../../dist/src/users/users.repository.js');
const { toView: toUserView } = require('../../dist/src/users/users.service.js');
const { connectedSourceView } = require('../../dist/src/connections/connection-views.js');
const { toLabTestView } = require('../../dist/src/lab-tests/lab-catalog.views.js');
const { LabCatalogRepository } = require('../../dist/src/lab-tests/lab-catalog.repository.js');
const { LabTestsRepository } = require('../../dist/src/lab-tests/lab-tests.repository.js');
const { createDataSource } = require('../../dist/src/db/data-source.js');

/**
 * The floor's Fastify app (not listening) and what closes it: `config` as loadConfig gives it,
 * the team whose rows the routes read, and the statements ({user, order, users, orders}: each
 * {name, text}) the routes run.
 */
export function floorApp({ config, teamId, environment, statements }) {
  const cipher = new PhiCipher(config.phiEncryptionKey, config.phiPreviousKeys);
  const requisitionLinks = new RequisitionLinks(config);
  const parseTimestamptz = pg.types.getTypeParser(1184, 'text');
  // A `date` column as its text (what TypeORM makes of pg's local-midnight Date for `activate_by`).
  const types = { getTypeParser: (oid, format) => (oid === 1082 ? (value) => value : pg.types.getTypeParser(oid, format)) };
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 20, types });
  const app = Fastify({ logger: false });

  /** Runs one of labflow's statements as the route's named statement. */
  const read = async (key, values) => (await pool.query({ ...statements[key], values })).rows;

  // The lab test of an order, by version (updated_at to the microsecond), read through labflow's
  // repositories the first time a version is seen: labflow caches it the same way (OrderViews), so
  // in steady state neither side reads it per request.
  let catalog;
  const labTests = new Map();
  async function labTestView(row) {
    const version = row.read_lab_test_version;
    const key = `${row.lab_test_id}@${version}`;
    let parts = labTests.get(key);
    if (!parts) {
      catalog ??= createDataSource(config.databaseUrl, 2).initialize();
      const db = await catalog;
      const tests = new LabTestsRepository(db);
      const labs = new LabCatalogRepository(db);
      const test = await tests.findVisible({ teamId: row.team_id, environment: row.environment }, row.lab_test_id);
      const [lab] = await labs.labsByIds([test.labId]);
      const markerIds = (await tests.markerIdsOf([test.id])).get(test.id) ?? [];
      const byId = new Map((await labs.markersByIds(markerIds)).map((marker) => [marker.id, marker]));
      parts = { test, lab, markers: markerIds.flatMap((id) => (byId.has(id) ? [byId.get(id)] : [])) };
      labTests.set(key, parts);
    }
    return toLabTestView(parts.test, parts.lab, parts.markers);
  }

  const iso = (text) => parseTimestamptz(text).toISOString();
  const open = (sealed) => (sealed ? cipher.decryptJson(sealed) : null);
  const addDays = (date, days) => new Date(date.getTime() + days * 86_400_000).toISOString().slice(0, 10);

  /** The order view (labflow's OrderViews) of a row of the order statements. */
  async function orderView(row) {
    const labTest = await labTestView(row);
    const events = (row.read_events ?? []).map(([id, , createdAt, status, statusDetail]) => ({
      id: Number(id),
      created_at: iso(createdAt),
      status,
      status_detail: statusDetail,
    }));
    const transaction = row.read_transaction;
    const createdAt = row.created_at.toISOString();
    const updatedAt = row.updated_at.toISOString();
    const shipment = row.shipment;
    const tat = (days) => (days ? addDays(row.created_at, days) : null);
    return {
      id: row.id,
      team_id: row.team_id,
      user_id: row.user_id,
      patient_details: open(row.patient_details_enc),
      patient_address: open(row.patient_address_enc),
      lab_test: labTest,
      details: {
        type: row.collection_method,
        data: {
          id: row.id,
          ...(row.collection_method === 'testkit'
            ? {
                shipment: shipment
                  ? {
                      id: shipment.id,
                      outbound_tracking_number: shipment.outbound_tracking_number,
                      outbound_tracking_url: shipment.outbound_tracking_url,
                      outbound_courier: shipment.outbound_courier,
                      inbound_tracking_number: shipment.inbound_tracking_number,
                      inbound_tracking_url: shipment.inbound_tracking_url,
                      inbound_courier: shipment.inbound_courier,
                      notes: shipment.notes,
                      created_at: shipment.created_at,
                      updated_at: shipment.updated_at,
                    }
                  : null,
              }
            : row.read_appointment_id
              ? { appointment_id: row.read_appointment_id }
              : {}),
          created_at: createdAt,
          updated_at: updatedAt,
        },
      },
      sample_id: row.sample_id,
      notes: open(row.notes_enc),
      created_at: createdAt,
      updated_at: updatedAt,
      events,
      status: row.status,
      last_event: events.at(-1) ?? null,
      physician: row.physician,
      health_insurance_id: row.health_insurance_id,
      requisition_form_url: row.requisition_form_url ? requisitionLinks.url(row.id) : row.requisition_form_url,
      priority: row.priority,
      shipping_details: open(row.shipping_details_enc),
      activate_by: row.activate_by,
      passthrough: row.passthrough,
      billing_type: row.billing_type,
      icd_codes: row.icd_codes_enc ? open(row.icd_codes_enc) : row.icd_codes,
      has_abn: row.has_abn,
      interpretation: row.interpretation,
      has_missing_results: row.has_missing_results,
      expected_result_by_date: tat(labTest.common_tat_days),
      worst_case_result_by_date: tat(labTest.worst_case_tat_days),
      origin: row.origin,
      order_transaction: transaction
        ? {
            id: transaction[0],
            status: transaction[1],
            orders: (row.read_siblings ?? []).map(([id, created, updated, lowLevelStatus, origin, statusAt]) => ({
              id,
              created_at: iso(created),
              updated_at: iso(updated),
              low_level_status: lowLevelStatus,
              low_level_status_created_at: statusAt === null ? null : iso(statusAt),
              origin,
            })),
          }
        : null,
      clinical_notes: row.clinical_notes_enc ? open(row.clinical_notes_enc) : row.clinical_notes,
      lab_account_id: row.lab_account_id,
    };
  }

  /** The user object (labflow's userFromRow and toView, the birth date opened) of a row of the user statements. */
  const userView = (row) => {
    const user = userFromRow(row);
    return toUserView(
      user,
      // The sealed birth date opened as UsersService opens it (plaintext from before it was sealed as it is).
      user.fallbackBirthDateEnc !== null ? cipher.decryptJson(user.fallbackBirthDateEnc) : user.plaintextFallbackBirthDate,
      (row.connections ?? []).map(([provider, createdAt]) => connectedSourceView({ provider, createdAt: parseTimestamptz(createdAt) })),
    );
  };

  app.get('/health/ready', async () => ({ status: 'ok' }));
  app.get('/v2/user/:id', async (request, reply) => {
    const [user] = await read('user', [request.params.id, teamId, environment]);
    return user ? userView(user) : reply.code(404).send({ detail: 'User not found.' });
  });
  app.get('/v3/order/:id', async (request, reply) => {
    const [order] = await read('order', [request.params.id, teamId, environment]);
    return order ? orderView(order) : reply.code(404).send({ detail: 'Order not found.' });
  });
  app.get('/v2/user', async () => {
    const rows = await read('users', [teamId, environment, 0, 50]);
    return { users: rows.map(userView), total: rows.length === 0 ? 0 : Number(rows[0].total), offset: 0, limit: 50 };
  });
  app.get('/v3/orders', async () => {
    const rows = await read('orders', [teamId, environment, 0, 50]);
    const orders = await Promise.all(rows.filter((row) => row.id !== null).map(orderView));
    return { orders, total: rows[0]?.read_total ?? 0, page: 1, size: 50 };
  });
  return {
    app,
    close: async () => {
      await app.close();
      await pool.end();
      if (catalog) await (await catalog).destroy();
    },
  };
}
