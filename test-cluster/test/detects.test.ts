// The harness can see an anomaly when there is one: ?stale reads (allowed to be stale by the API) from a
// leader cut off from the others return a value that a completed write has already replaced, and the
// register checker must call that history not linearizable. A ?consistent read there must not answer.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { httpCall } from "../../scripts/lib/http.js";
import { checkRegisters, type RegisterOp } from "../src/check/register.js";
import { Cluster } from "../src/cluster/cluster.js";
import { namespaceNetwork, namespacesAvailable } from "../src/cluster/netns.js";
import { pairsBetween } from "../src/cluster/network.js";

it.skipIf(!namespacesAvailable())(
  "flags stale reads from an isolated leader, and consistent reads there do not answer",
  async () => {
    const root = mkdtempSync(join(tmpdir(), "cairn-detects-"));
    const network = namespaceNetwork(3);
    const cluster = new Cluster({ network, dataRoot: join(root, "data"), logRoot: join(root, "logs") });
    const now = () => performance.now();
    const history: RegisterOp[] = [];
    const write = async (node: number, value: string) => {
      const invoke = now();
      const r = await httpCall(`${cluster.nodes[node]!.url}/v1/kv/k`, "PUT", value, 2000);
      const ok = r.kind === "reply" && r.status === 200 && r.body.trim() === "true";
      history.push({ process: node, key: "k", invoke, complete: ok ? now() : undefined, f: "write", value });
      return ok;
    };
    try {
      await cluster.start();
      const leader = await cluster.awaitLeader();
      expect(await write(leader, "old")).toBe(true);
      const others = cluster.nodes.map((n) => n.index).filter((i) => i !== leader);
      for (const [a, b] of pairsBetween([[leader], others])) await network.cut(a, b);
      // The majority elects a new leader and takes the write.
      while (!(await write(others[0]!, "new"))) {}

      const invoke = now();
      const stale = await httpCall(`${cluster.nodes[leader]!.url}/v1/kv/k?stale`, "GET", undefined, 2000);
      expect(stale.kind === "reply" && stale.status).toBe(200);
      const body = stale.kind === "reply" ? (JSON.parse(stale.body) as { Value: string }[]) : [];
      const value = Buffer.from(body[0]!.Value, "base64").toString();
      expect(value).toBe("old");
      const read: RegisterOp = { process: 9, key: "k", invoke, complete: now(), f: "read", value };
      expect(checkRegisters([...history, read]).valid).toBe(false);

      const consistent = await httpCall(
        `${cluster.nodes[leader]!.url}/v1/kv/k?consistent`,
        "GET",
        undefined,
        2000,
      );
      expect(consistent.kind === "failure" || consistent.status >= 500).toBe(true);
    } finally {
      await cluster.stop();
      network.teardown();
      rmSync(root, { recursive: true, force: true });
    }
  },
  90_000,
);
