// The message writer: compressed owner names that decode to the same records dns-packet writes whole, a fresh
// uniform shuffle per message, a_record_limit, and fitting to UDP (TC for answers, not for additionals).
import type { Answer } from "dns-packet";
import * as packet from "dns-packet";
import { describe, expect, it } from "vitest";
import { type Fitting, type ResponseParts, writeResponse } from "../src/message.js";
import { questionBytes } from "../src/wire.js";

const QNAME = "Web.Service.Consul";
const a = (i: number): Answer => ({ name: QNAME, type: "A", ttl: 5, data: `10.0.0.${i + 1}` });
const target = (i: number) => `n${i}.node.dc1.consul`;
const srv = (i: number): Answer => ({
  name: QNAME,
  type: "SRV",
  ttl: 5,
  data: { priority: 1, weight: 1, port: 8000 + i, target: target(i) },
});
const opt = { type: "OPT", name: ".", udpPayloadSize: 4096, flags: 0, options: [] } as unknown as Answer;

function parts(type: "A" | "SRV", answers: Answer[], additionals: Answer[] = []): ResponseParts {
  return {
    id: 4242,
    flags: packet.AUTHORITATIVE_ANSWER | packet.RECURSION_DESIRED,
    question: questionBytes({ name: QNAME, type, class: "IN" }),
    questionName: QNAME,
    answers,
    shuffle: true,
    authorities: [],
    additionals,
    edns: undefined,
  };
}
const tcp: Fitting = {
  transport: "tcp",
  udpSize: undefined,
  udpAnswerLimit: 3,
  enableTruncate: false,
  aRecordLimit: 0,
  compress: true,
  random: Math.random,
};
type Decoded = packet.DecodedPacket & { flag_tc: boolean };
const decode = (b: Buffer) => packet.decode(b) as Decoded;
const dataOf = (r: Answer): unknown => ("data" in r ? r.data : undefined);
const sortData = (rs: readonly Answer[] | undefined) =>
  (rs ?? []).map((r) => JSON.stringify(dataOf(r))).sort();

describe("writeResponse", () => {
  const as = Array.from({ length: 100 }, (_, i) => a(i));
  const srvs = Array.from({ length: 100 }, (_, i) => srv(i));
  const targets = Array.from(
    { length: 100 },
    (_, i): Answer => ({
      name: target(i),
      type: "A",
      ttl: 5,
      data: `10.0.1.${i + 1}`,
    }),
  );

  it("points owner names at the question and SRV targets, decoding to the records dns-packet writes whole", () => {
    const p = parts("SRV", srvs, targets);
    const bytes = writeResponse(p, tcp);
    const whole = packet.encode({
      type: "response",
      id: p.id,
      flags: p.flags,
      questions: [{ name: QNAME, type: "SRV", class: "IN" }],
      answers: srvs,
      additionals: targets,
    });
    expect(bytes.length).toBeLessThan(whole.length * 0.75);
    const d = decode(bytes);
    expect(d.id).toBe(4242);
    expect(d.questions).toEqual([{ name: QNAME, type: "SRV", class: "IN" }]);
    expect(d.answers?.every((r) => r.name === QNAME)).toBe(true);
    expect(sortData(d.answers)).toEqual(sortData(srvs));
    // Every additional is the address of a target, under that target's name.
    expect(d.additionals?.map((r) => `${r.name} ${dataOf(r)}`).sort()).toEqual(
      targets.map((r) => `${r.name} ${dataOf(r)}`).sort(),
    );
  });

  it("writes the bytes dns-packet writes when compression is disabled", () => {
    const p = { ...parts("SRV", srvs.slice(0, 5), targets), shuffle: false, edns: opt };
    const whole = packet.encode({
      type: "response",
      id: p.id,
      flags: p.flags,
      questions: [{ name: QNAME, type: "SRV", class: "IN" }],
      answers: srvs.slice(0, 5),
      additionals: [...targets.slice(0, 5), opt],
    });
    expect(writeResponse(p, { ...tcp, compress: false }).equals(whole)).toBe(true);
    expect(writeResponse(p, tcp).length).toBeLessThan(whole.length);
  });

  it("shuffles every message afresh, each record first about equally often", () => {
    const firsts = new Map<string, number>();
    const runs = 5_000;
    const orders = new Set<string>();
    for (let k = 0; k < runs; k++) {
      const d = decode(writeResponse(parts("A", as.slice(0, 10)), tcp));
      const order = (d.answers ?? []).map((r) => dataOf(r) as string);
      expect(order).toHaveLength(10);
      firsts.set(order[0]!, (firsts.get(order[0]!) ?? 0) + 1);
      if (k < 1000) orders.add(order.join(","));
    }
    expect(firsts.size).toBe(10);
    // Expected 500 each (standard deviation about 21); a bias of a fifth would be far outside chance.
    for (const n of firsts.values()) expect(Math.abs(n - runs / 10)).toBeLessThan(runs / 50);
    // 10! orders: a thousand messages almost never repeat one.
    expect(orders.size).toBeGreaterThan(990);
  });

  it("answers UDP from written messages in a uniformly random order, their orders renewed, ID and flags its own", () => {
    const udp: Fitting = { ...tcp, transport: "udp", udpSize: 4096 };
    const firsts = new Map<string, number>();
    const orders = new Set<string>();
    const runs = 10_000;
    for (let k = 0; k < runs; k++) {
      const flags = k % 2 ? packet.RECURSION_DESIRED : 0;
      const d = decode(writeResponse({ ...parts("A", as.slice(0, 10)), id: k, flags, edns: opt }, udp));
      expect(d.id).toBe(k);
      expect((d.flags ?? 0) & packet.RECURSION_DESIRED).toBe(flags);
      expect(d.type).toBe("response");
      const order = (d.answers ?? []).map((r) => dataOf(r) as string);
      firsts.set(order[0]!, (firsts.get(order[0]!) ?? 0) + 1);
      orders.add(order.join(","));
    }
    expect(firsts.size).toBe(10);
    // Expected 1,000 each; a slot serves about eight messages before it is rewritten, which widens the spread
    // (standard deviation about 115), still far below a bias of a half.
    for (const n of firsts.values()) expect(Math.abs(n - runs / 10)).toBeLessThan(runs / 20);
    // About one message in eight writes a fresh order.
    expect(orders.size).toBeGreaterThan(runs / 16);
  });

  it("cuts a TCP answer to the 65,535 bytes its framing can carry, with TC", () => {
    const many = Array.from({ length: 3_000 }, (_, i) => srv(i));
    const bytes = writeResponse(parts("SRV", many), tcp);
    expect(bytes.length).toBeLessThanOrEqual(65_535);
    const d = decode(bytes);
    expect(d.flag_tc).toBe(true);
    expect(d.answers!.length).toBeGreaterThan(1_000);
    expect(d.answers!.length).toBeLessThan(3_000);
  });

  it("caps A records at a_record_limit on any transport", () => {
    const d = decode(writeResponse(parts("A", as), { ...tcp, aRecordLimit: 2 }));
    expect(d.answers).toHaveLength(2);
  });

  it("fits UDP: answer limit without EDNS (TC only with enable_truncate), the EDNS buffer with TC", () => {
    const udp: Fitting = { ...tcp, transport: "udp" };
    expect(decode(writeResponse(parts("A", as), udp))).toMatchObject({ flag_tc: false });
    expect(decode(writeResponse(parts("A", as), udp)).answers).toHaveLength(3);
    expect(decode(writeResponse(parts("A", as), { ...udp, enableTruncate: true })).flag_tc).toBe(true);
    const all = writeResponse({ ...parts("A", as), edns: opt }, { ...udp, udpSize: 4096 });
    expect(decode(all).answers).toHaveLength(100);
    expect(decode(all).flag_tc).toBe(false);
    const cut = writeResponse({ ...parts("SRV", srvs, targets), edns: opt }, { ...udp, udpSize: 1232 });
    expect(cut.length).toBeLessThanOrEqual(1232);
    const d = decode(cut);
    expect(d.flag_tc).toBe(true);
    expect(d.answers!.length).toBeGreaterThan(10);
    expect(d.answers!.length).toBeLessThan(100);
    expect(d.additionals?.at(-1)?.type).toBe("OPT");
  });

  it("leaves out additionals that do not fit without TC, and those no given answer names", () => {
    const udp: Fitting = { ...tcp, transport: "udp", udpSize: 4096 };
    const d = decode(writeResponse({ ...parts("SRV", srvs, targets), edns: opt }, udp));
    expect(d.answers).toHaveLength(100);
    expect(d.flag_tc).toBe(false);
    expect(d.additionals!.length).toBeLessThan(101);
    const given = new Set(d.answers!.map((r) => (dataOf(r) as { target: string }).target));
    const few = decode(writeResponse(parts("SRV", srvs.slice(0, 5), targets), tcp));
    expect(few.additionals!.map((r) => r.name).sort()).toEqual(
      srvs
        .slice(0, 5)
        .map((_, i) => target(i))
        .sort(),
    );
    for (const x of d.additionals!.filter((r) => r.type !== "OPT")) expect(given.has(x.name)).toBe(true);
  });
});
