import { Injectable } from '@nestjs/common';
import { PhiCipher } from '../common/crypto';
import { Hl7Repository } from './hl7.repository';
import { decodeInbound } from './inbound-message';
import { readReportedOrders } from './lab-report';

/** The report a lab embedded in its results (OBX ED, a base64 PDF). */
@Injectable()
export class Hl7ReportPdfs {
  constructor(
    private readonly repository: Hl7Repository,
    private readonly cipher: PhiCipher,
  ) {}

  /** The latest PDF the lab sent for the order; null when it sent none (or is no HL7 lab). */
  async labPdfOf(orderId: string): Promise<Buffer | null> {
    let latest: string | null = null;
    for (const row of await this.repository.inboundBodiesOf(orderId)) {
      const { message } = decodeInbound(Buffer.from(this.cipher.decrypt(row.bodyEnc), 'utf8'));
      for (const order of readReportedOrders(message)) {
        for (const observation of order.observations) {
          if (observation.valueType === 'ED' && observation.mediaSubtype === 'pdf' && observation.value) latest = observation.value;
        }
      }
    }
    return latest === null ? null : Buffer.from(latest, 'base64');
  }
}
