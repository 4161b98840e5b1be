import * as gossip from "@cairn/gossip";
import { type Coordinate, datacentersByDistance } from "@cairn/gossip";
import { describe, expect, it } from "vitest";
import { coordinateDistance, planFailover, sortByDistance } from "../src/index.js";

const at = (x: number, extra: Partial<Coordinate> = {}): Coordinate => ({
  Vec: [x, 0, 0, 0, 0, 0, 0, 0],
  Error: 0,
  Adjustment: 0,
  Height: 0,
  ...extra,
});

const servers = (datacenter: string, ...xs: number[]) => xs.map((x) => ({ datacenter, coordinate: at(x) }));

describe("datacenter order (one implementation for every caller)", () => {
  it("orders by median server round-trip time, then name; unmeasured last; this datacenter first", () => {
    const order = datacentersByDistance("here", at(0), [
      ...servers("far", 0.5, 0.6, 0.7),
      ...servers("near", 0.1, 0.9, 0.05),
      ...servers("b-tie", 0.2),
      ...servers("a-tie", 0.2),
      { datacenter: "unknown", coordinate: undefined },
      // Consul counts every local server as zero RTT, however far its coordinate says it is.
      ...servers("here", 5),
    ]);
    expect(order).toEqual(["here", "near", "a-tie", "b-tie", "far", "unknown"]);
  });

  // The agent's old copy compared unrounded seconds and discovery's old copy whole nanoseconds (as Consul's
  // ComputeDistance does), so these differed: unrounded, dc-b (1 ms + 0.1 ns) came before dc-a (1 ms + 0.4 ns);
  // in nanoseconds both are 1 ms and the name decides, as in Consul.
  const table = [
    ...servers("dc-b", 0.0010000000001),
    ...servers("dc-a", 0.0010000000004),
    ...servers("dc-c", 0.002),
  ];

  it("rounds as Consul does where the old copies disagreed, and every caller sees that order", () => {
    const order = datacentersByDistance("dc1", at(0), table);
    expect(order).toEqual(["dc1", "dc-a", "dc-b", "dc-c"]);
    // Prepared-query failover's NearestN reads the same list.
    expect(planFailover({ NearestN: 1, Datacenters: null }, "dc1", order)).toEqual(["dc-a"]);
    expect(planFailover({ NearestN: 2, Datacenters: null }, "dc1", order)).toEqual(["dc-a", "dc-b"]);
    // `near` sorting and Vivaldi share the distance function, so both see the tie datacenter order sees.
    expect(coordinateDistance).toBe(gossip.coordinateDistance);
    expect(coordinateDistance(at(0), at(0.0010000000001))).toBe(
      coordinateDistance(at(0), at(0.0010000000004)),
    );
    expect(
      sortByDistance(
        ["b", "a", "c"],
        at(0),
        (n) => table.find((s) => s.datacenter === `dc-${n}`)?.coordinate,
      ),
    ).toEqual(["b", "a", "c"]);
    expect(new gossip.VivaldiClient().distanceTo(at(0.0010000000004))).toBe(
      new gossip.VivaldiClient().distanceTo(at(0.0010000000001)),
    );
  });
});
