import { z } from 'zod';
import { LAB_REPORT_TASK_QUEUE } from '../../workflows/contract/lab-reports';
import { boolFlag, doc, duration, offsetList, port, wholeNumber } from './env-values';

/** The environment variables of the domains': orders, sandbox, appointments, lab reports, the portal, reminders, health data, connections, Link and providers, HL7 labs (the shape ./environment.ts joins). */
export const domainEnv = {
  HEALTH_DATA_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1_048_576)
    .meta(doc('healthData', 'Body limit of health-data ingestion (`POST /v2/timeseries/…`, `POST /v2/summary/…`: tens of thousands of samples per request).')),
  HEALTH_DATA_PAGE_SIZE: wholeNumber(1, 100_000)
    .default(10_000)
    .meta(doc('healthData', 'Samples per page of a grouped timeseries read (`next_cursor` pages on).')),
  HEALTH_DATA_EVENT_WINDOW: duration
    .default('5s')
    .meta(
      doc(
        'healthData',
        "Timeseries events gather the samples of one user, resource, provider and source type for this long after the first (across requests), then go out as one event. `0s`: each request's samples go out at the next relay pass.",
      ),
    ),
  CONTINUOUS_QUERY_DEBOUNCE: duration
    .default('10s')
    .meta(
      doc('healthData', "Continuous queries: how long after a user's data changed their queries are evaluated. Writes meanwhile join the same evaluation."),
    ),
  CONTINUOUS_QUERY_POLL_INTERVAL: duration.default('1s').meta(doc('healthData', 'How often the worker role `continuous-queries` looks for due evaluations.')),
  CONTINUOUS_QUERY_LEASE: duration
    .default('5m')
    .meta(doc('healthData', 'An evaluation not finished this long after it started (its worker died) is started again.')),
  HEALTH_DATA_EVENT_MAX_SAMPLES: z.coerce
    .number()
    .int()
    .min(1)
    .default(10_000)
    .meta(doc('healthData', 'Samples of one timeseries event at most; more go into further events.')),
  HEALTH_DATA_EVENT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(256 * 1024)
    .meta(doc('healthData', 'Bytes of sample JSON in one timeseries event at most (webhook payloads stay bounded).')),
  CONNECTION_BACKFILL_DAYS: wholeNumber(0, 365)
    .default(30)
    .meta(doc('connections', "Days of history a new connection backfills (Junction's demo connections: 30).")),
  CONNECTION_BACKFILL_CHUNK: duration
    .default('1d')
    .meta(doc('connections', 'History one backfill step syncs. Each step is one activity, so a killed worker repeats one step.')),
  CONNECTION_SYNC_INTERVAL: duration
    .default('15m')
    .meta(doc('connections', "Time between a connection's incremental syncs (`POST /v2/user/refresh/{user_id}` syncs at once).")),
  CONNECTION_SYNCS_PER_RUN: wholeNumber(1, 1000)
    .default(96)
    .meta(doc('connections', 'Incremental syncs per workflow run before it continues as new, which keeps its history short.')),
  CONNECTION_SYNC_INTERVALS: z
    .string()
    .trim()
    .refine(
      (value) => value === '' || value.split(',').every((pair) => /^[a-z0-9_]+=/.test(pair.trim()) && duration.safeParse(pair.trim().split('=')[1]).success),
      {
        message: 'must be a comma-separated list of provider=duration, such as "whoop_v2=2h,oura=30m"',
      },
    )
    .default('whoop_v2=2h')
    .meta(
      doc(
        'connections',
        'Sync intervals of particular providers as `provider=duration` pairs (`whoop_v2=2h,oura=30m`), in place of `CONNECTION_SYNC_INTERVAL`, for connections made from then on. A running connection keeps its interval until it is connected again. WHOOP allows an application 10,000 requests a day and a sync costs four: every 2 h is about 48 a member a day.',
      ),
    ),
  CONNECTION_SYNC_TIMEOUT: duration.default('2m').meta(doc('connections', 'How long one sync step may run before Temporal gives it to another worker.')),
  CONNECTION_SYNC_HEARTBEAT_TIMEOUT: duration
    .default('30s')
    .meta(
      doc(
        'connections',
        'A sync step heartbeats while it runs. One whose worker sent no heartbeat this long (the worker died) runs again elsewhere, without waiting out `CONNECTION_SYNC_TIMEOUT`.',
      ),
    ),
  CONNECTION_SYNC_RETRY_INTERVAL: duration.default('5s').meta(doc('connections', 'First retry interval of a failed sync step (doubling, at most 10 minutes).')),
  MOBILE_SIGN_IN_TOKEN_TTL: duration
    .default('10m')
    .meta(doc('link', 'How long a mobile SDK sign-in token (`POST /v2/user/{user_id}/sign_in_token`) can be exchanged (once) at `POST /v1/token`.')),
  MOBILE_ACCESS_TOKEN_TTL: duration.default('1h').meta(doc('link', 'How long a mobile SDK access token works before the SDK refreshes it (`expires_in`).')),
  MOBILE_REFRESH_TOKEN_TTL: duration
    .default('180d')
    .meta(doc('link', 'How long a mobile SDK session lasts without a refresh; each refresh hands out a new refresh token and starts it again.')),
  MOBILE_SIGNING_KEY_ROTATION: duration
    .default('30d')
    .meta(
      doc(
        'link',
        'Age at which the RS256 key that signs mobile SDK tokens is replaced by a new one (generated and sealed in Postgres); an older key stays in the JWKS until what it signed has expired.',
      ),
    ),
  MOBILE_SIGNING_KEY: z
    .string()
    .refine((value) => value.includes('-----BEGIN PRIVATE KEY-----'), { message: 'must be an RSA private key in PKCS#8 PEM' })
    .optional()
    .meta(
      doc(
        'link',
        'An RSA private key (PKCS#8 PEM) to sign mobile SDK tokens with instead of the generated ones (kid: its JWK thumbprint).',
        'labflow generates the signing keys itself and rotates them (MOBILE_SIGNING_KEY_ROTATION)',
      ),
    ),
  LINK_CODE_TTL: duration.default('1h').meta(doc('link', 'How long a link code (`POST /v2/link/code/create` without `expires_at`) can be exchanged (once).')),
  LINK_BULK_PULL_BATCH: wholeNumber(1, 1000)
    .default(10)
    .meta(doc('link', "Link Migration's bulk historical pull: connections pulled per step (10 every 20 s is Junction's pace for Oura, 150 per 5 minutes).")),
  LINK_BULK_PULL_INTERVAL: duration
    .default('20s')
    .meta(doc('link', "Link Migration's bulk historical pull: the pause between steps, to spare the provider's rate limit.")),
  LINK_BULK_HEARTBEAT_TIMEOUT: duration
    .default('30s')
    .meta(
      doc(
        'link',
        "Link Migration: a bulk operation's step heartbeats while it runs; one whose worker sent none this long (the worker died) runs again elsewhere.",
      ),
    ),
  LINK_BULK_OP_RETENTION: duration
    .default('90d')
    .meta(
      doc(
        'link',
        "Link Migration: an ended bulk operation's users (a row each, with their outcome) are deleted by the retention sweep this long after it ended. The operation stays in `GET /v2/link/bulk_op` with its counts.",
      ),
    ),
  FHIR_EXPORT_RETENTION: duration
    .default('24h')
    .meta(doc('requests', "FHIR Bulk Data export: a completed export's NDJSON files are kept this long, then deleted (the status URL then answers 404).")),
  FHIR_EXPORT_PAGE_SIZE: wholeNumber(1, 10000)
    .default(1000)
    .meta(doc('requests', 'FHIR Bulk Data export: resources per page read and written (one sealed part of an NDJSON file each).')),
  LINK_BULK_WAIT: duration
    .default('20s')
    .meta(
      doc(
        'link',
        'Link Migration: how long a bulk import or historical pull with `wait_for_completion` is waited for before the answer is 202 (Junction: 20 s).',
      ),
    ),
  SANDBOX_SOURCE_ERRORS: z
    .string()
    .regex(/^([a-z_]+=[a-z_]+(,[a-z_]+=[a-z_]+)*)?$/, 'a comma-separated list of provider=error_type')
    .default('')
    .meta(
      doc(
        'sandbox',
        'Demo providers whose source refuses every sync with a connection error, as `provider=error_type` pairs (`fitbit=token_refresh_failed,oura=required_scopes_not_granted`). Shows `provider.connection.error` and a connection in `error` without a real source.',
      ),
    ),
  ORDER_REGISTRATION_WINDOW: duration.default('60d').meta(doc('orders', 'How long a customer has to register a received kit before the order is cancelled.')),
  ORDER_SAMPLE_TO_LAB_WINDOW: duration.default('30d').meta(doc('orders', 'How long a kit may take from the customer to the lab before it counts as lost.')),
  SANDBOX_STEP_DELAY: duration.default('1s').meta(doc('sandbox', "Default pause between the steps of a sandbox order's simulation.")),
  PHYSICIAN_ENFORCEMENT_DATE: z.iso
    .date()
    .default('2026-08-01')
    .meta(doc('orders', 'From this date (YYYY-MM-DD), delegated lab accounts need a physician on the order.')),
  REQUISITION_LINK_TTL: duration
    .default('7d')
    .meta(doc('orders', 'How long a `requisition_form_url` (a signed link, no API key needed) works after the order was read.')),
  PARTNER_WEBHOOK_SECRET: z
    .string()
    .min(16)
    .optional()
    .meta(
      doc(
        'orders',
        'HMAC secret of the courier, lab and appointment-provider webhooks (`POST /v3/webhooks/…`). See [Partner webhooks](orders-and-appointments.md#partner-webhooks).',
        'those webhooks refuse every call',
      ),
    ),
  SANDBOX_CALLBACKS: boolFlag
    .default(true)
    .meta(
      doc(
        'sandbox',
        "Sandbox partners (courier, lab) call labflow's partner webhooks back for production-environment orders. Needs `PARTNER_WEBHOOK_SECRET`; sent by the worker role `sandbox`.",
      ),
    ),
  SANDBOX_CALLBACKS_QUEUE: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,100}$/)
    .default('labflow-sandbox-callbacks')
    .meta(doc('sandbox', 'BullMQ queue of sandbox partner callbacks (tests use one per stack).')),
  SANDBOX_PARTNERS_API_URL: z
    .string()
    .url()
    .optional()
    .meta(
      doc(
        'sandbox',
        "labflow's API as the worker reaches it: the sandbox partners of `POST /v3/order/{id}/test` (courier, lab, appointment provider) and the sandbox callbacks of production-environment orders call its signed partner webhooks there (compose: `http://api:8000`).",
        '`PUBLIC_API_URL`',
      ),
    ),
  SANDBOX_COURIER_STEP_DELAY: duration
    .default('5s')
    .meta(doc('sandbox', 'Sandbox courier: pause between its tracking updates (`out_for_delivery` … `delivered_to_lab`).')),
  SANDBOX_LAB_RESULT_DELAY: duration.default('15s').meta(doc('sandbox', 'Sandbox lab: how long after a sample is delivered it reports the order completed.')),
  HL7_LISTENER_PORT: port.default(2575).meta(doc('hl7', 'Port of the MLLP listener labs send HL7 results and order status messages to (worker role `hl7`).')),
  HL7_LISTENER_HOST: z.string().min(1).default('0.0.0.0').meta(doc('hl7', 'Address the HL7 MLLP listener binds to.')),
  HL7_LISTENER_TLS_CERT_FILE: z
    .string()
    .min(1)
    .optional()
    .meta(doc('hl7', 'PEM certificate of the HL7 listener; with `HL7_LISTENER_TLS_KEY_FILE` it speaks MLLP over TLS.', 'plain TCP')),
  HL7_LISTENER_TLS_KEY_FILE: z
    .string()
    .min(1)
    .optional()
    .meta(doc('hl7', 'PEM private key of the HL7 listener certificate.', 'plain TCP')),
  HL7_LISTENER_TLS_CA_FILE: z
    .string()
    .min(1)
    .optional()
    .meta(doc('hl7', 'PEM CA bundle: labs must present a client certificate it signed (mutual TLS).', 'no client certificate asked')),
  HL7_MAX_MESSAGE_BYTES: wholeNumber(1024, 100_000_000)
    .default(10_000_000)
    .meta(doc('hl7', 'Largest HL7 message the listener takes, in bytes; a larger frame is refused with AR.')),
  HL7_FRAME_TIMEOUT: duration.default('30s').meta(doc('hl7', 'How long the listener waits for the end of a begun MLLP frame before refusing it as truncated.')),
  HL7_ACK_TIMEOUT: duration.default('30s').meta(doc('hl7', 'How long labflow waits for a lab to ACK an order message before the send is retried.')),
  HL7_REDELIVER_AFTER: duration
    .default('15s')
    .meta(
      doc(
        'hl7',
        'A message the listener stored and ACKed but has not handed to its order this long after (its listener stopped, a signal failed) is handed over again; the listener sweeps for such messages this often.',
      ),
    ),
  HL7_HANDOFF_POLL: duration.default('200ms').meta(doc('hl7', 'How often worker role `hl7-handoff` looks for stored messages when its last look found none.')),
  SANDBOX_HL7_LAB_PORT: port
    .default(2576)
    .meta(doc('hl7', 'Port the sandbox HL7 lab (worker role `sandbox-hl7-lab`) takes order messages on; point a sandbox HL7 lab account at it.')),
  SANDBOX_HL7_LAB_RESULTS_TO: z
    .string()
    .regex(/^[A-Za-z0-9.-]+:\d{1,5}$/, { message: 'must be host:port' })
    .default('127.0.0.1:2575')
    .meta(doc('hl7', "Where the sandbox HL7 lab sends its results: labflow's HL7 listener, `host:port`.")),
  APPOINTMENT_AVAILABILITY_CACHE_TTL: duration
    .default('60s')
    .meta(
      doc(
        'appointments',
        'How long an availability answer is served from the Redis cache (`0s`: no cache). Responses say `x-labflow-cache: off|miss|hit|stale`.',
      ),
    ),
  APPOINTMENT_AVAILABILITY_STALE_TTL: duration
    .default('10m')
    .meta(doc('appointments', 'With `allow_stale=true`, a cached answer up to this old is served while it refreshes.')),
  APPOINTMENT_PROVIDER_STEP_DELAY: duration
    .default('5s')
    .meta(
      doc(
        'sandbox',
        'Sandbox appointment providers: delay before they confirm a pending booking (async confirmation, provider-managed requests) or cancel on their side (notes containing `[sandbox:provider_cancel]`).',
      ),
    ),
  APPOINTMENT_NO_SHOW_GRACE: duration
    .default('1d')
    .meta(doc('appointments', 'An appointment nobody reported on this long after its end is closed as a no-show (cancelled).')),
  APPOINTMENT_IDEMPOTENCY_KEY_TTL: duration
    .default('14d')
    .meta(doc('appointments', "How long a PSC booking's `x-idempotency-key` answers with the appointment it made.")),
  LAB_REPORT_TASK_QUEUE: z
    .string()
    .min(1)
    .default(LAB_REPORT_TASK_QUEUE)
    .meta(
      doc(
        'labReports',
        "Task queue of the parsing workflows and their OCR-heavy activities, apart from the order workflows' queue (worker role `lab-reports`).",
      ),
    ),
  LAB_REPORT_STEP_TIMEOUT: duration.default('10m').meta(doc('labReports', 'Longest one processing step (extract, parse, match) may run.')),
  LAB_REPORT_HEARTBEAT_TIMEOUT: duration
    .default('30s')
    .meta(doc('labReports', 'A step whose worker sent no heartbeat this long (the worker died) is retried on another.')),
  LAB_REPORT_RETRY_INTERVAL: duration.default('2s').meta(doc('labReports', 'First retry delay of a failing step (doubling after).')),
  LAB_REPORT_MAX_ATTEMPTS: wholeNumber(1, 100).default(5).meta(doc('labReports', 'Attempts of a step before the job fails with `processing_error`.')),
  LAB_REPORT_CONCURRENCY: wholeNumber(1, 64).default(2).meta(doc('labReports', 'Processing steps one worker runs at once (OCR keeps a core busy per page).')),
  LAB_REPORT_START_GRACE: duration
    .default('10s')
    .meta(doc('labReports', "A job this old whose workflow is not known to run gets it started by the worker's sweep.")),
  PORTAL_LAUNCH_TTL: duration
    .default('5m')
    .meta(doc('portal', "How long a `launch` URL works (it works once); the webhook portal's URL (`GET /v2/team/svix/url`) too.")),
  PORTAL_COMMUNICATIONS_TTL: duration.default('28d').meta(doc('portal', 'How long a `communications` short link (`/p/<code>`) works, unless revoked.')),
  PORTAL_SESSION_TTL: duration.default('1h').meta(doc('portal', "How long a session lasts after a link was opened (the webhook portal's too).")),
  PORTAL_DEVICE_TTL: duration
    .default('90d')
    .meta(doc('portal', "How long a device that entered a one-time code is remembered for that link (never past the link's expiry).")),
  PORTAL_CODE_TTL: duration.default('10m').meta(doc('portal', 'How long a one-time code works.')),
  PORTAL_CODE_MAX_FAILURES: wholeNumber(1, 100).default(5).meta(doc('portal', 'Wrong codes a communications link takes over its whole life before it locks.')),
  PORTAL_CODE_MAX_SENDS: wholeNumber(1, 100).default(10).meta(doc('portal', 'One-time codes a communications link sends over its whole life.')),
  SMTP_URL: z
    .string()
    .url()
    .refine((value) => /^smtps?:/.test(value), { message: 'must be an smtp:// or smtps:// URL' })
    .optional()
    .meta(
      doc(
        'reminders',
        'SMTP server of e-mails to patients (`smtp://` or `smtps://user:pass@host:port`).',
        'e-mail goes only to the development outbox, and is not offered in production',
      ),
    ),
  REMINDER_BOOK_APPOINTMENT_AFTER: offsetList
    .prefault('24h,72h,7d')
    .meta(
      doc(
        'reminders',
        "Book-your-appointment reminders this long after an appointment order's requisition is ready (or its appointment was cancelled) while nothing is booked; `off`: none.",
      ),
    ),
  REMINDER_APPOINTMENT_BEFORE: offsetList
    .prefault('24h')
    .meta(doc('reminders', 'Reminders this long before a booked appointment (one per value; a reschedule moves them); `off`: none.')),
  REMINDER_KIT_RETURN_AFTER: offsetList
    .prefault('2d,7d')
    .meta(doc('reminders', 'Kit-return reminders this long after a test kit reached the patient, until the sample is on its way to the lab; `off`: none.')),
  REMINDER_SEND_ATTEMPTS: wholeNumber(1, 100)
    .default(5)
    .meta(doc('reminders', "Attempts to send one reminder (the activity's retry policy) before it is given up. The order goes on.")),
  REMINDER_SEND_RETRY_INTERVAL: duration
    .default('30s')
    .meta(doc('reminders', 'Pause before the first retry of a failed reminder send (doubling after, at most 10 minutes).')),
  NOTIFICATIONS_FROM: z.string().min(3).default('labflow <no-reply@labflow.localhost>').meta(doc('reminders', 'From address of e-mails to patients.')),
  OURA_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .meta(
      doc(
        'link',
        "Oura for production teams: the client id of labflow's OAuth application at Oura (cloud.ouraring.com; redirect URI `<PUBLIC_API_URL>/v2/link/connect/oura`, so `PUBLIC_API_URL` is then required). Set both `OURA_CLIENT_*` or neither. See [Oura](link-and-providers.md#oura).",
        'production teams cannot connect Oura; sandbox teams always get generated Oura data',
      ),
    ),
  OURA_CLIENT_SECRET: z.string().min(1).optional().meta(doc('link', 'The client secret of that Oura application.')),
  OURA_AUTHORIZE_URL: z
    .string()
    .url()
    .default('https://cloud.ouraring.com/oauth/authorize')
    .meta(doc('link', "Oura's consent page, where the user's browser goes to grant access.")),
  OURA_API_URL: z
    .string()
    .url()
    .default('https://api.ouraring.com')
    .meta(doc('link', "Oura's API: tokens at `<it>/oauth/token`, data under `<it>/v2/usercollection`. Tests point it at a local stand-in.")),
  DEXCOM_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .meta(
      doc(
        'link',
        "Dexcom (`dexcom_v3`) for production teams: the client id of labflow's application at Dexcom (developer.dexcom.com; redirect URI `<PUBLIC_API_URL>/v2/link/connect/dexcom_v3`, so `PUBLIC_API_URL` is then required). Set both `DEXCOM_CLIENT_*` or neither. See [Dexcom](link-and-providers.md#dexcom).",
        'production teams cannot connect Dexcom',
      ),
    ),
  DEXCOM_CLIENT_SECRET: z.string().min(1).optional().meta(doc('link', 'The client secret of that Dexcom application.')),
  DEXCOM_API_URL: z
    .string()
    .url()
    .default('https://api.dexcom.com')
    .meta(
      doc(
        'link',
        "Where Dexcom is: `https://sandbox-api.dexcom.com` for Dexcom's sandbox, `https://api.dexcom.eu` or `https://api.dexcom.jp` outside the US. Login page `<it>/v2/oauth2/login`, tokens `<it>/v2/oauth2/token`, data under `<it>/v3/users/self`.",
      ),
    ),
  WHOOP_CLIENT_ID: z
    .string()
    .min(1)
    .optional()
    .meta(
      doc(
        'link',
        "WHOOP (`whoop_v2`) for production teams: the client id of labflow's application at WHOOP (developer.whoop.com; redirect URI `<PUBLIC_API_URL>/v2/link/connect/whoop_v2`, so `PUBLIC_API_URL` is then required). Set both `WHOOP_CLIENT_*` or neither. See [WHOOP](link-and-providers.md#whoop).",
        'production teams cannot connect WHOOP',
      ),
    ),
  WHOOP_CLIENT_SECRET: z
    .string()
    .min(1)
    .optional()
    .meta(doc('link', "The client secret of that WHOOP application; it also checks the signatures of WHOOP's webhooks.")),
  WHOOP_API_URL: z
    .string()
    .url()
    .default('https://api.prod.whoop.com')
    .meta(doc('link', "WHOOP's host: sign-in at `<it>/oauth/oauth2/auth`, tokens `<it>/oauth/oauth2/token`, data under `<it>/developer/v2`.")),
};
