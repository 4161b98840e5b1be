// The WAN chaos checker and the partition's cut list on hand-made histories.
import { describe, expect, it } from "vitest";
import { checkWan, type WanOp } from "../src/federation/wan-check.js";
import { wanPartitionPairs } from "../src/nemesis/wan-partition.js";

const op = (o: Partial<WanOp>): WanOp => ({
  kind: "remote-read",
  from: "dc1",
  to: "dc2",
  agent: "dc1-s1",
  key: "k",
  start: 0,
  end: 10,
  status: 200,
  body: "",
  ...o,
});
const cut = { dc: "dc2", at: 1000, healedAt: 5000 };
const options = { cleanFailureMs: 15_000, recoveryMs: 3000 };

describe("wanPartitionPairs", () => {
  it("cuts every link between one datacenter's nodes and the others', none inside a side", () => {
    const pairs = wanPartitionPairs([[0, 1], [2, 3], [4]], 1);
    expect(pairs.map(([a, b]) => [Math.min(a, b), Math.max(a, b)]).sort()).toEqual(
      [
        [0, 2],
        [0, 3],
        [1, 2],
        [1, 3],
        [2, 4],
        [3, 4],
      ].sort(),
    );
  });
});

describe("checkWan", () => {
  it("accepts clean failures across a cut, failures while healing and successes elsewhere", () => {
    const verdict = checkWan(
      [
        op({
          start: 1500,
          end: 11_500,
          status: 500,
          body: 'rpc error: datacenter "dc2" did not answer within 10s',
        }),
        op({ start: 2000, end: 2001, status: 500, body: "No path to datacenter" }),
        op({ start: 5100, end: 5200, status: 500, body: "rpc error: no server could be reached" }),
        op({ start: 9000, end: 9010 }),
        op({ kind: "local-write", from: "dc2", to: "dc2", start: 2000, end: 2010 }),
        op({ from: "dc3", to: "dc1", start: 2000, end: 2010 }),
      ],
      [cut],
      options,
    );
    expect(verdict.anomalies).toEqual([]);
    expect(verdict.recoveries).toEqual([{ dc: "dc2", ms: 4000 }]);
  });

  it("flags a failed local write, a hang across the cut, a failure with the WAN whole and a lost write", () => {
    const verdict = checkWan(
      [
        op({ kind: "local-write", from: "dc2", to: "dc2", start: 2000, end: 2010, status: 500, body: "x" }),
        op({ start: 1500, end: 40_000, status: 0, body: "timeout" }),
        op({ start: 20_000, end: 20_010, status: 500, body: "rpc error" }),
        op({ start: 21_000, end: 21_010, status: 404 }),
      ],
      [cut],
      options,
    );
    expect(verdict.valid).toBe(false);
    expect(verdict.anomalies).toHaveLength(4);
    expect(verdict.anomalies[0]).toMatch(/local write failed/);
    expect(verdict.anomalies[1]).toMatch(/did not fail cleanly/);
    expect(verdict.anomalies[2]).toMatch(/WAN whole/);
    expect(verdict.anomalies[3]).toMatch(/not found/);
  });
});
