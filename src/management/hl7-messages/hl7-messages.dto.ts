import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { responseDto } from '../../common/openapi';
import { uuidParam } from '../common/params';

export class OrgTeamOrderParams extends createZodDto(z.object({ org_id: uuidParam, team_id: uuidParam, order_id: uuidParam })) {}
export class OrgTeamMessageParams extends createZodDto(z.object({ org_id: uuidParam, team_id: uuidParam, message_id: uuidParam })) {}

export class ListHeldMessagesQuery extends createZodDto(
  z.object({
    limit: z.coerce.number().int().min(1).max(1000).default(100).describe('At most this many, oldest first.'),
  }),
) {}

export class RematchMessageDto extends createZodDto(
  z
    .object({
      order_id: uuidParam
        .optional()
        .describe("The team's order at the message's lab that the message belongs to; without it, the message's placer and filler numbers are matched again."),
    })
    .strict(),
) {}

const hl7Message = z.object({
  id: z.string(),
  direction: z.enum(['in', 'out']).describe('in: from the lab to labflow; out: labflow to the lab.'),
  message_type: z.string().describe('MSH-9, e.g. ORU^R01, ORM^O01.'),
  control_id: z.string().describe('MSH-10 of the message.'),
  peer_facility: z.string().describe("The lab's facility: MSH-4 of a message in, MSH-6 of one out."),
  lab_account_id: z.string().nullable(),
  order_id: z.string().nullable(),
  filler_number: z.string().nullable().describe("The lab's accession number (ORC-3/OBR-3) the message carried."),
  state: z
    .enum(['sending', 'accepted', 'error', 'rejected', 'received', 'processed', 'held'])
    .describe('out: sending, accepted (AA/CA), error (AE), rejected (AR); in: received, processed (handed to the order), held (matched no order).'),
  ack_code: z.string().nullable().describe('The ACK that answered it: the lab’s for a message out, labflow’s for one in.'),
  ack_text: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

export class Hl7MessageDto extends responseDto(hl7Message) {}
export class Hl7MessageListDto extends responseDto(z.object({ hl7_messages: z.array(hl7Message) })) {}

export class Hl7MessageDetailDto extends responseDto(
  hl7Message.extend({
    reported_orders: z
      .array(
        z.object({
          placer_order_number: z.string().nullable().describe('ORC-2/OBR-2: the order id labflow sent.'),
          filler_order_number: z.string().nullable().describe('ORC-3/OBR-3: the lab’s accession number.'),
          order_control: z.string().nullable(),
          order_status: z.string().nullable(),
          result_status: z.string().nullable(),
          observation_count: z.number().int(),
        }),
      )
      .describe(
        'For a message in: the orders it reports, by their numbers only (what a re-match goes by). The body itself, with its PHI, is shown only by the ops CLI, audited.',
      ),
  }),
) {}

export type Hl7MessageView = z.input<typeof hl7Message>;
