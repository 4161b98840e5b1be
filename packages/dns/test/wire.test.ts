// The cached-record encoder must write exactly what dns-packet's whole-message encoder writes.
import * as packet from "dns-packet";
import { describe, expect, it } from "vitest";
import { encodeResponse, recordBytes } from "../src/wire.js";

describe("encodeResponse", () => {
  it("writes the same bytes as packet.encode, reusing each record's encoding", () => {
    const srv: packet.Answer = {
      name: "web.service.consul",
      type: "SRV",
      ttl: 0,
      data: { priority: 1, weight: 1, port: 80, target: "n1.node.dc1.consul" },
    };
    const p: packet.Packet = {
      type: "response",
      id: 4242,
      flags: packet.RECURSION_DESIRED | packet.AUTHORITATIVE_ANSWER | packet.TRUNCATED_RESPONSE | 3,
      questions: [{ name: "Web.Service.Consul", type: "SRV", class: "IN" }],
      answers: [srv, { name: "web.service.consul", type: "A", ttl: 30, data: "10.0.0.1" }],
      authorities: [
        {
          name: "consul",
          type: "SOA",
          ttl: 0,
          data: {
            mname: "ns.consul",
            rname: "hostmaster.consul",
            serial: 1,
            refresh: 3600,
            retry: 600,
            expire: 86_400,
            minimum: 0,
          },
        },
      ],
      additionals: [
        { name: "n1.node.dc1.consul", type: "TXT", ttl: 0, data: "rack=a" },
        { type: "OPT", name: ".", udpPayloadSize: 4096, flags: 0, options: [] } as unknown as packet.Answer,
      ],
    };
    expect(encodeResponse(p).equals(packet.encode(p))).toBe(true);
    expect(recordBytes(srv)).toBe(recordBytes(srv));
    const bare: packet.Packet = { type: "response", id: 7, flags: 5 };
    expect(encodeResponse(bare).equals(packet.encode(bare))).toBe(true);
  });
});
