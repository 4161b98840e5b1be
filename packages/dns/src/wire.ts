import type { Answer, Packet } from "dns-packet";
import * as packet from "dns-packet";

// dns-packet's record codec (exported, but not in its type definitions): one resource record at a time.
interface Codec<T> {
  encode: ((value: T, buf: Buffer, offset: number) => unknown) & { bytes: number };
  encodingLength(value: T): number;
}
const codecs = packet as unknown as { answer: Codec<Answer>; question: Codec<Question> };
type Question = NonNullable<Packet["questions"]>[number];

// As packet.encode does: into a buffer of the estimated length, cut to what was written (a name with odd
// characters can be estimated longer than it encodes).
function encodeOne<T>(codec: Codec<T>, value: T): Buffer {
  const buf = Buffer.alloc(codec.encodingLength(value));
  codec.encode(value, buf, 0);
  return buf.subarray(0, codec.encode.bytes);
}
const questionBytes = (q: Question) => encodeOne(codecs.question, q);

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

const HEADER_SIZE = 12;
const RESPONSE_FLAG = 0x8000;

/**
 * The same bytes as `packet.encode(p)` for a response (dns-packet compresses no names, so a message is its
 * header followed by its parts), built from each record's cached wire form.
 */
export function encodeResponse(p: Packet): Buffer {
  const questions = (p.questions ?? []).map(questionBytes);
  const sections = [p.answers ?? [], p.authorities ?? [], p.additionals ?? []];
  const parts: Buffer[] = [Buffer.alloc(HEADER_SIZE), ...questions];
  for (const section of sections) for (const r of section) parts.push(recordBytes(r));
  const header = parts[0] as Buffer;
  header.writeUInt16BE(p.id ?? 0, 0);
  header.writeUInt16BE(((p.flags ?? 0) & 0x7fff) | (p.type === "response" ? RESPONSE_FLAG : 0), 2);
  header.writeUInt16BE(questions.length, 4);
  header.writeUInt16BE(sections[0]!.length, 6);
  header.writeUInt16BE(sections[1]!.length, 8);
  header.writeUInt16BE(sections[2]!.length, 10);
  return Buffer.concat(parts);
}
