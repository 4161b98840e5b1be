// The decoder under arbitrary and mutated packets: every message gets a well-formed reply or none, promptly,
// and never an exception (which would end the agent's UDP handler).
import * as packet from "dns-packet";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type HandlerOptions, handleMessage } from "../src/index.js";
import { instance, memoryView, node } from "./memory-view.js";

const n1 = node("n1", "10.0.0.1", { rack: "a" });
const options: HandlerOptions = {
  view: memoryView({ nodes: [n1], services: [instance("web", n1, { tags: ["v1"] })] }),
  nodeName: "fuzz",
  domain: "consul.",
  altDomain: undefined,
  datacenter: "dc1",
  nodeTtlMs: 0,
  serviceTtlMs: {},
  onlyPassing: false,
  aRecordLimit: 0,
  udpAnswerLimit: 3,
  enableTruncate: false,
  // Outside names are refused rather than sent anywhere.
  recursors: [],
  recursorTimeoutMs: 100,
};

const RCODES = new Set(["NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED"]);

async function check(bytes: Uint8Array, transport: "udp" | "tcp"): Promise<void> {
  const reply = await handleMessage(Buffer.from(bytes), { transport, source: "127.0.0.1" }, options);
  if (reply === undefined) return;
  const decoded = packet.decode(reply) as packet.DecodedPacket & { rcode: string };
  expect(decoded.type).toBe("response");
  expect(RCODES.has(decoded.rcode)).toBe(true);
  if (transport === "udp") expect(reply.length).toBeLessThanOrEqual(65_535);
}

const valid = (name: string, type: string) =>
  packet.encode({
    type: "query",
    id: 99,
    flags: packet.RECURSION_DESIRED,
    questions: [{ name, type: type as "A" }],
  });

describe("DNS decoder fuzz", () => {
  it("answers arbitrary bytes with FORMERR or not at all", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 600 }),
        fc.constantFrom("udp" as const, "tcp" as const),
        check,
      ),
      { numRuns: 2_000 },
    );
  });

  it("survives mutations of well-formed queries", async () => {
    const seeds = [
      valid("web.service.consul", "A"),
      valid("_web._tcp.service.dc1.consul", "SRV"),
      valid("n1.node.consul", "TXT"),
      valid("1.0.0.10.in-addr.arpa", "PTR"),
      valid("consul", "ANY"),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...seeds),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }),
        fc.nat({ max: 8 }),
        async (seed, flips, cut) => {
          const bytes = Buffer.from(seed);
          for (const [at, value] of flips) bytes[at % bytes.length] = value;
          await check(bytes.subarray(0, bytes.length - cut), "udp");
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it("answers FORMERR to a question whose label holds a dot (it would come back as an empty label)", async () => {
    const label = (text: string) => [text.length, ...Buffer.from(text)];
    const query = Buffer.from([
      ...[0, 7, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0],
      ...label("web"),
      ...label("."),
      ...label("consul"),
      0,
      ...[0, 1, 0, 1],
    ]);
    const reply = await handleMessage(query, { transport: "udp", source: "127.0.0.1" }, options);
    expect(reply).toBeDefined();
    const decoded = packet.decode(reply as Buffer) as packet.DecodedPacket & { rcode: string };
    expect(decoded.rcode).toBe("FORMERR");
  });

  it("answers odd but decodable questions", async () => {
    const names = fc.array(fc.stringMatching(/^[a-z0-9_-]{1,20}$/), { minLength: 0, maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(
        names,
        fc.constantFrom("A", "AAAA", "SRV", "TXT", "PTR", "SOA", "NS", "ANY", "MX", "CNAME"),
        async (labels, type) => {
          await check(valid([...labels, "consul"].join("."), type), "udp");
          await check(valid(labels.join(".") || "x", type), "tcp");
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
