import type { Answer, Packet } from "dns-packet";
import * as packet from "dns-packet";

// dns-packet's record codec (exported, but not in its type definitions): one resource record at a time.
interface Codec<T> {
  encode: ((value: T, buf: Buffer, offset: number) => unknown) & { bytes: number };
  encodingLength(value: T): number;
}
const codecs = packet as unknown as { answer: Codec<Answer>; question: Codec<Question>; name: Codec<string> };
type Question = NonNullable<Packet["questions"]>[number];

// As packet.encode does: into a buffer of the estimated length, cut to what was written (a name with odd
// characters can be estimated longer than it encodes).
function encodeOne<T>(codec: Codec<T>, value: T): Buffer {
  const buf = Buffer.alloc(codec.encodingLength(value));
  codec.encode(value, buf, 0);
  return buf.subarray(0, codec.encode.bytes);
}
/** The question as dns-packet writes it. */
export const questionBytes = (q: Question): Buffer => encodeOne(codecs.question, q);

/** How many bytes a name takes, uncompressed, as dns-packet writes it. */
export const nameLength = (name: string): number => encodeOne(codecs.name, name).length;

// A record's wire form, kept with the record object: the resolver reuses the records of an unchanged read,
// so a busy name's records are encoded once, not once per question. Records are never mutated once built.
const encoded = new WeakMap<object, Buffer>();

/** The record's wire bytes (uncompressed, as dns-packet writes them), encoded once per record object. */
export function recordBytes(r: Answer): Buffer {
  let bytes = encoded.get(r);
  if (!bytes) {
    bytes = encodeOne(codecs.answer, r);
    encoded.set(r, bytes);
  }
  return bytes;
}
