import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { FrameCodec, Keyring, type Message } from "../src/index.js";

const packet: Message[] = [{ t: "ping", seq: 1, node: "b" }];
const key = (n = 32) => randomBytes(n).toString("base64");

describe("keyring", () => {
  it("seals with the primary key and opens with any installed key: a rotation never breaks a frame", () => {
    const [k1, k2] = [key(), key(16)];
    const old = new Keyring([k1]);
    const rotating = new Keyring([k1]);
    const a = new FrameCodec(old);
    const b = new FrameCodec(rotating);
    rotating.install(k2);
    expect(rotating.list()).toEqual([k1, k2]);
    expect(a.decode(b.encode("b:1", packet))).toMatchObject({ ok: true });
    rotating.use(k2);
    expect(rotating.primaryKey()).toBe(k2);
    // Sealed with k2 now: only members that installed it open it.
    expect(a.decode(b.encode("b:1", packet))).toEqual({ ok: false, reason: "wrong-key" });
    old.install(k2);
    expect(a.decode(b.encode("b:1", packet))).toMatchObject({ ok: true });
    expect(b.decode(a.encode("a:1", packet))).toMatchObject({ ok: true });
    rotating.remove(k1);
    expect(rotating.list()).toEqual([k2]);
    expect(b.decode(a.encode("a:1", packet))).toEqual({ ok: false, reason: "wrong-key" });
  });

  it("refuses what memberlist refuses, and duplicate installs are no-ops", () => {
    const [k1, k2] = [key(), key(24)];
    const ring = new Keyring([k1, k1]);
    expect(ring.list()).toEqual([k1]);
    ring.install(k1);
    expect(ring.list()).toEqual([k1]);
    expect(() => ring.use(k2)).toThrow("Requested key is not in the keyring");
    expect(() => ring.remove(k1)).toThrow("Removing the primary key is not allowed");
    ring.remove(k2);
    expect(() => ring.install("short")).toThrow(/16, 24 or 32 bytes/);
    expect(() => new Keyring([])).toThrow();
  });
});
