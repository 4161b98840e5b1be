// The listener in-process over an in-memory view, queried with real `dig`: UDP truncation and the TCP retry,
// EDNS buffer sizes, bad input (RFC 1035/2308 answers), idle TCP connections, and recursor forwarding.
import dgram from "node:dgram";
import { readdirSync } from "node:fs";
import { connect } from "node:net";
import * as packet from "dns-packet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../../../scripts/lib/wait.js";
import { DnsListener, type HandlerOptions } from "../src/index.js";
import { dig } from "./dig.js";
import { instance, memoryView, node } from "./memory-view.js";

const nodes = Array.from({ length: 100 }, (_, i) =>
  node(`n${i}`, `10.1.${Math.floor(i / 250)}.${(i % 250) + 1}`),
);
const view = memoryView({
  nodes,
  services: [
    ...nodes.map((n) => instance("big", n, { port: 9000 })),
    ...nodes.slice(0, 5).map((n) => instance("few", n, { port: 9001 })),
  ],
});

const base: HandlerOptions = {
  view,
  nodeName: "test",
  domain: "consul.",
  altDomain: undefined,
  datacenter: "dc1",
  nodeTtlMs: 0,
  serviceTtlMs: {},
  onlyPassing: false,
  aRecordLimit: 0,
  udpAnswerLimit: 3,
  enableTruncate: false,
  recursors: [],
  recursorTimeoutMs: 2_000,
};

let plain: DnsListener;
let truncating: DnsListener;
let recursing: DnsListener;
let upstream: dgram.Socket;

beforeAll(async () => {
  // A tiny upstream: every A question gets 192.0.2.7.
  upstream = dgram.createSocket("udp4");
  upstream.on("message", (msg, peer) => {
    const q = packet.decode(msg);
    const reply = packet.encode({
      type: "response",
      id: q.id ?? 0,
      flags: packet.RECURSION_AVAILABLE,
      questions: q.questions ?? [],
      answers: (q.questions ?? []).map((x) => ({
        name: x.name,
        type: "A" as const,
        ttl: 42,
        data: "192.0.2.7",
      })),
    });
    upstream.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((r) => upstream.bind(0, "127.0.0.1", () => r()));
  plain = await DnsListener.start({ host: "127.0.0.1", port: 0, handler: base, tcpIdleMs: 500 });
  truncating = await DnsListener.start({
    host: "127.0.0.1",
    port: 0,
    handler: { ...base, enableTruncate: true },
  });
  recursing = await DnsListener.start({
    host: "127.0.0.1",
    port: 0,
    handler: {
      ...base,
      recursors: ["127.0.0.1:1", `127.0.0.1:${upstream.address().port}`],
      recursorTimeoutMs: 500,
    },
  });
});

afterAll(async () => {
  await plain?.close();
  await truncating?.close();
  await recursing?.close();
  upstream?.close();
});

describe("UDP limits and TCP", () => {
  it("gives at most udp_answer_limit A records on plain UDP, without TC unless enable_truncate", async () => {
    const r = await dig(plain.port, "few.service.consul", "A", "+noedns");
    expect(r.status).toBe("NOERROR");
    expect(r.answer).toHaveLength(3);
    expect(r.flags).not.toContain("tc");
    const t = await dig(truncating.port, "few.service.consul", "A", "+noedns", "+ignore");
    expect(t.answer).toHaveLength(3);
    expect(t.flags).toContain("tc");
  });

  it("sets TC when the answer does not fit the buffer, and dig's TCP retry gets every record", async () => {
    // With EDNS the answer limit does not apply (as Consul's); the size does.
    const udp = await dig(plain.port, "big.service.consul", "SRV", "+bufsize=1232", "+ignore");
    expect(udp.flags).toContain("tc");
    expect(udp.answer.length).toBeLessThan(100);
    const retried = await dig(plain.port, "big.service.consul", "SRV", "+bufsize=1232");
    expect(retried.transport).toBe("TCP");
    expect(retried.answer).toHaveLength(100);
    const a = await dig(plain.port, "big.service.consul", "A", "+tcp");
    expect(a.answer).toHaveLength(100);
  });

  it("honours the EDNS0 buffer size", async () => {
    const small = await dig(plain.port, "big.service.consul", "A", "+bufsize=512", "+ignore");
    const large = await dig(plain.port, "big.service.consul", "A", "+bufsize=4096", "+ignore");
    expect(small.flags).toContain("tc");
    expect(large.flags).not.toContain("tc");
    expect(large.answer).toHaveLength(100);
    expect(large.raw).toMatch(/EDNS: version: 0/);
  });

  it("closes a TCP connection that sends nothing", async () => {
    const socket = connect(plain.port, "127.0.0.1");
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    await closed;
    expect(socket.destroyed).toBe(true);
  });

  it("closes idle and half-sent TCP connections without keeping their descriptors", async () => {
    const descriptors = () => readdirSync("/proc/self/fd").length;
    const before = descriptors();
    const sockets = Array.from({ length: 20 }, (_, i) => {
      const socket = connect(plain.port, "127.0.0.1");
      // Half of them send a length prefix and part of a message, then nothing.
      if (i % 2) socket.write(Buffer.from([0, 40, 1, 2, 3]));
      socket.on("error", () => {});
      return new Promise<void>((resolve) => socket.once("close", () => resolve()));
    });
    await Promise.all(sockets);
    // Both ends live in this process: once the listener has let go of its side, the count is back.
    await waitFor("descriptors released", async () => (descriptors() <= before ? true : undefined), 10_000);
  });
});

describe("bad input", () => {
  const send = (bytes: Buffer, port = plain.port): Promise<Buffer | undefined> =>
    new Promise((resolve) => {
      const s = dgram.createSocket("udp4");
      const timer = setTimeout(() => {
        s.close();
        resolve(undefined);
      }, 1_000);
      s.on("message", (m) => {
        clearTimeout(timer);
        s.close();
        resolve(m);
      });
      s.send(bytes, port, "127.0.0.1");
    });

  it("answers a malformed packet FORMERR and ignores a runt", async () => {
    const garbage = Buffer.from([0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0x50, 0x41]);
    const reply = await send(garbage);
    expect(reply).toBeDefined();
    const decoded = packet.decode(reply as Buffer) as packet.DecodedPacket & { rcode: string };
    expect(decoded.id).toBe(0x1234);
    expect(decoded.rcode).toBe("FORMERR");
    expect(await send(Buffer.from([1, 2, 3]))).toBeUndefined();
  });

  it("refuses other classes and gives NODATA for unsupported types", async () => {
    expect((await dig(plain.port, "few.service.consul", "-c", "CH", "A")).status).toBe("REFUSED");
    const mx = await dig(plain.port, "few.service.consul", "MX");
    expect(mx.status).toBe("NOERROR");
    expect(mx.answer).toEqual([]);
    expect(mx.authority[0]?.type).toBe("SOA");
  });

  it("answers a UDP query over 512 bytes without EDNS FORMERR", async () => {
    const q = packet.encode({
      type: "query",
      id: 7,
      questions: [{ name: "few.service.consul", type: "A" }],
      additionals: Array.from({ length: 20 }, (_, i) => ({
        name: `pad${i}.example`,
        type: "TXT" as const,
        ttl: 0,
        data: "x".repeat(20),
      })),
    });
    expect(q.length).toBeGreaterThan(512);
    const decoded = packet.decode((await send(q)) as Buffer) as packet.DecodedPacket & { rcode: string };
    expect(decoded.rcode).toBe("FORMERR");
  });

  it("answers FORMERR for a label over 63 bytes or a name over 255, NXDOMAIN for long valid ones", async () => {
    const header = Buffer.from([0, 9, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    const tail = Buffer.from([0, 0, 1, 0, 1]);
    const longLabel = Buffer.concat([header, Buffer.from([64]), Buffer.alloc(64, 0x61), tail]);
    const longName = Buffer.concat([
      header,
      ...Array.from({ length: 5 }, () => Buffer.concat([Buffer.from([63]), Buffer.alloc(63, 0x62)])),
      tail,
    ]);
    for (const q of [longLabel, longName]) {
      const decoded = packet.decode((await send(q)) as Buffer) as packet.DecodedPacket & { rcode: string };
      expect(decoded.rcode).toBe("FORMERR");
    }
    const r = await dig(plain.port, `${"a".repeat(63)}.${"b".repeat(63)}.service.consul`);
    expect(r.status).toBe("NXDOMAIN");
  });
});

describe("recursors", () => {
  it("forwards names outside the domain to the first recursor that answers", async () => {
    const r = await dig(recursing.port, "example.org", "A");
    expect(r.status).toBe("NOERROR");
    expect(r.answer[0]).toMatchObject({ type: "A", data: "192.0.2.7", ttl: 42 });
    expect(r.flags).toContain("ra");
  });

  it("refuses names outside the domain without recursors", async () => {
    expect((await dig(plain.port, "example.org", "A")).status).toBe("REFUSED");
  });

  it("answers SERVFAIL when no recursor answers", async () => {
    const dead = await DnsListener.start({
      host: "127.0.0.1",
      port: 0,
      handler: { ...base, recursors: ["127.0.0.1:1"], recursorTimeoutMs: 300 },
    });
    try {
      const r = await waitFor("a SERVFAIL", async () => {
        const x = await dig(dead.port, "example.org", "A");
        return x.status === "" ? undefined : x;
      });
      expect(r.status).toBe("SERVFAIL");
    } finally {
      await dead.close();
    }
  });
});
