import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { FrameCodec, type Message, parseKey } from "../src/index.js";

const packet: Message[] = [
  { t: "ping", seq: 1, node: "b" },
  { t: "alive", node: "a", address: "10.0.0.1:8301", incarnation: 3, tags: { role: "server" } },
];

describe("frames", () => {
  it("round-trips plain and encrypted frames", () => {
    const plain = new FrameCodec();
    expect(plain.decode(plain.encode("a:1", packet))).toEqual({ ok: true, from: "a:1", packet });
    const key = parseKey(randomBytes(24).toString("base64"));
    const sealed = new FrameCodec(key);
    const frame = sealed.encode("a:1", packet);
    expect(frame.includes(Buffer.from("10.0.0.1:8301"))).toBe(false);
    expect(sealed.decode(frame)).toEqual({ ok: true, from: "a:1", packet });
  });

  it("rejects tampering, a wrong key, plaintext to a keyed node, and a changed version byte", () => {
    const key = parseKey(randomBytes(16).toString("base64"));
    const sealed = new FrameCodec(key);
    const frame = sealed.encode("a:1", packet);
    const tampered = Buffer.from(frame);
    tampered[20] = (tampered[20] ?? 0) ^ 1;
    expect(sealed.decode(tampered)).toEqual({ ok: false, reason: "wrong-key" });
    expect(new FrameCodec(parseKey(randomBytes(16).toString("base64"))).decode(frame)).toEqual({
      ok: false,
      reason: "wrong-key",
    });
    expect(sealed.decode(new FrameCodec().encode("a:1", packet))).toEqual({ ok: false, reason: "wrong-key" });
    const versioned = Buffer.from(frame);
    versioned[0] = 2;
    expect(sealed.decode(versioned)).toEqual({ ok: false, reason: "unknown-version" });
  });

  it("accepts only 16, 24 or 32-byte base64 keys", () => {
    expect(() => parseKey("not base64!")).toThrow();
    expect(() => parseKey(randomBytes(20).toString("base64"))).toThrow();
    expect(parseKey(randomBytes(32).toString("base64"))).toHaveLength(32);
  });
});
