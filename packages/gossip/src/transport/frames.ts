import { type CipherGCMTypes, createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { Packr } from "msgpackr";
import type { Message } from "../core/types.js";
import { Keyring } from "./keyring.js";
import { isMessage } from "./validate.js";

/**
 * Wire frame: one version byte, then the msgpack body `{ from, packet }` (plain), or with a shared key
 * nonce(12) | AES-GCM ciphertext | tag(16), the version byte authenticated as additional data. Frames are
 * sealed with the keyring's primary key and opened with whichever installed key fits.
 */
export const FRAME_VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export type DecodeFailure = "malformed" | "unknown-version" | "invalid" | "wrong-key";
export type Decoded = { ok: true; from: string; packet: Message[] } | { ok: false; reason: DecodeFailure };

export class FrameCodec {
  private readonly packr = new Packr({ useRecords: true, moreTypes: false });
  private readonly keyring: Keyring | undefined;

  /** A raw key is a keyring of one. */
  constructor(key?: Buffer | Keyring) {
    this.keyring = Buffer.isBuffer(key) ? new Keyring([key.toString("base64")]) : key;
  }

  encode(from: string, packet: readonly Message[]): Buffer {
    const body = this.packr.pack({ from, packet });
    const version = Buffer.of(FRAME_VERSION);
    if (!this.keyring) return Buffer.concat([version, body]);
    const key = this.keyring.primary;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(algorithm(key), key, nonce);
    cipher.setAAD(version);
    const sealed = Buffer.concat([cipher.update(body), cipher.final()]);
    return Buffer.concat([version, nonce, sealed, cipher.getAuthTag()]);
  }

  decode(frame: Buffer): Decoded {
    if (frame.length < 2) return { ok: false, reason: "malformed" };
    if (frame[0] !== FRAME_VERSION) return { ok: false, reason: "unknown-version" };
    let body: Buffer | undefined;
    if (this.keyring) {
      if (frame.length < 1 + NONCE_BYTES + TAG_BYTES) return { ok: false, reason: "wrong-key" };
      for (const key of this.keyring.all) {
        body = open(frame, key);
        if (body) break;
      }
      if (!body) return { ok: false, reason: "wrong-key" };
    } else {
      body = frame.subarray(1);
    }
    let decoded: unknown;
    try {
      decoded = this.packr.unpack(body);
    } catch {
      return { ok: false, reason: "malformed" };
    }
    if (typeof decoded !== "object" || decoded === null) return { ok: false, reason: "malformed" };
    const { from, packet } = decoded as { from?: unknown; packet?: unknown };
    if (typeof from !== "string" || from.length === 0 || !Array.isArray(packet) || packet.length === 0) {
      return { ok: false, reason: "malformed" };
    }
    if (!packet.every(isMessage)) return { ok: false, reason: "invalid" };
    return { ok: true, from, packet };
  }
}

function algorithm(key: Buffer): CipherGCMTypes {
  return key.length === 16 ? "aes-128-gcm" : key.length === 24 ? "aes-192-gcm" : "aes-256-gcm";
}

/** The frame's body if `key` sealed it. */
function open(frame: Buffer, key: Buffer): Buffer | undefined {
  try {
    const nonce = frame.subarray(1, 1 + NONCE_BYTES);
    const decipher = createDecipheriv(algorithm(key), key, nonce);
    decipher.setAAD(frame.subarray(0, 1));
    decipher.setAuthTag(frame.subarray(frame.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(frame.subarray(1 + NONCE_BYTES, frame.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    return undefined;
  }
}
