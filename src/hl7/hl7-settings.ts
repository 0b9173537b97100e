import { z } from 'zod';
import { HL7_ORDER_MESSAGE_TYPES, HL7_VERSIONS } from './hl7.entities';

/** HL7's delimiters and segment separator: a name or code holding one would break the message. */
const NO_DELIMITERS = /^[^|^~\\&\r\n]+$/;
const hl7Name = (max: number) =>
  z.string().trim().min(1).max(max).regex(NO_DELIMITERS, { message: 'must not contain HL7 delimiters (| ^ ~ \\ &) or line breaks' });
const file = z.string().trim().min(1).max(1024);

/** A lab account's HL7 interface as ops set it (`labflow hl7 configure`), validated before storing. */
export const hl7InterfaceSettings = z
  .object({
    host: z
      .string()
      .trim()
      .min(1)
      .max(253)
      .regex(/^[A-Za-z0-9.:-]+$/, { message: 'must be a host name or IP address' }),
    port: z.number().int().min(1).max(65535),
    tls: z
      .object({ caFile: file.nullish(), certFile: file.nullish(), keyFile: file.nullish(), serverName: z.string().trim().min(1).max(253).nullish() })
      .refine((tls) => Boolean(tls.certFile) === Boolean(tls.keyFile), { message: 'a client certificate needs its key (certFile and keyFile together)' })
      .nullish(),
    sendingApplication: hl7Name(180),
    sendingFacility: hl7Name(180),
    receivingApplication: hl7Name(180),
    receivingFacility: hl7Name(180),
    version: z.enum(HL7_VERSIONS),
    orderMessageType: z.enum(HL7_ORDER_MESSAGE_TYPES),
    testCodes: z.record(z.string().regex(/^\d{1,9}$/, { message: 'keys are marker ids' }), z.object({ code: hl7Name(64), text: hl7Name(199) })),
  })
  .strict()
  .refine((settings) => settings.version === '2.5.1' || settings.orderMessageType === 'ORM^O01', {
    message: 'OML^O21 is an HL7 2.5.1 message (LOI); a 2.3 interface takes ORM^O01',
    path: ['orderMessageType'],
  });
export type Hl7InterfaceSettings = z.output<typeof hl7InterfaceSettings>;
