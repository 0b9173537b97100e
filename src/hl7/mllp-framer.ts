/** MLLP frame bytes: start block VT, end block FS CR. */
export const VT = 0x0b;
export const FS = 0x1c;
export const CR = 0x0d;

export type FrameEvent = { kind: 'message'; bytes: Buffer } | { kind: 'oversized'; size: number } | { kind: 'garbage'; bytes: number };

/**
 * Reads MLLP frames from a byte stream: a frame split across reads, several frames in one read,
 * bytes between frames (skipped, reported once), and frames larger than `maxBytes` (reported, and
 * their bytes dropped up to the frame's end). @medplum/hl7's Hl7Connection assumes a read ends
 * where a frame ends and has no size limit, so the listener frames for itself.
 */
export class MllpFramer {
  private buffer: Buffer = Buffer.alloc(0);
  private inFrame = false;
  private dropping = false;
  private dropped = 0;

  constructor(private readonly maxBytes: number) {}

  /** Whether a frame has begun and not ended (a timeout may then close the connection). */
  get pending(): boolean {
    return this.inFrame;
  }

  push(chunk: Buffer): FrameEvent[] {
    const events: FrameEvent[] = [];
    let data = this.buffer.length > 0 ? Buffer.concat([this.buffer, chunk]) : chunk;
    this.buffer = Buffer.alloc(0);
    for (;;) {
      if (!this.inFrame) {
        const start = data.indexOf(VT);
        const skipped = start === -1 ? data.length : start;
        // Whitespace between frames (a CR or LF some senders add) is not worth a word.
        if (skipped > 0 && data.subarray(0, skipped).some((byte) => byte !== CR && byte !== 0x0a)) events.push({ kind: 'garbage', bytes: skipped });
        if (start === -1) return events;
        data = data.subarray(start + 1);
        this.inFrame = true;
        this.dropping = false;
        this.dropped = 0;
      }
      const end = indexOfEnd(data);
      if (end === -1) {
        if (this.dropping || data.length > this.maxBytes) {
          if (!this.dropping) this.dropping = true;
          // Keep a last FS, whose CR may come with the next read.
          this.dropped += data.length - (data.at(-1) === FS ? 1 : 0);
          this.buffer = data.at(-1) === FS ? Buffer.from([FS]) : Buffer.alloc(0);
        } else {
          this.buffer = Buffer.from(data);
        }
        return events;
      }
      const body = data.subarray(0, end);
      if (this.dropping || body.length > this.maxBytes) events.push({ kind: 'oversized', size: this.dropped + body.length });
      else events.push({ kind: 'message', bytes: Buffer.from(body) });
      this.inFrame = false;
      this.dropping = false;
      data = data.subarray(end + 2);
    }
  }
}

function indexOfEnd(data: Buffer): number {
  for (let at = data.indexOf(FS); at !== -1; at = data.indexOf(FS, at + 1)) {
    if (data[at + 1] === CR) return at;
  }
  return -1;
}

/** A message's text framed for the wire. */
export function frame(text: string | Buffer): Buffer {
  const body = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return Buffer.concat([Buffer.from([VT]), body, Buffer.from([FS, CR])]);
}
