// One network namespace per agent (server or client), each joined by a veth pair to a bridge in the root
// namespace. Agent i gets 10.77.<subnet>.<i+1>; the bridge holds .254 so that the harness (in the root
// namespace) reaches every agent's HTTP port. The namespaces have no default route: their traffic stays among themselves and the
// harness. A cut is a blackhole route to the peer on both sides (silently dropped packets, as a real
// partition; no iptables needed).

import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Network, NodeAddress } from "./network.js";

const PORTS = { httpPort: 8500, serverPort: 8300, serfPort: 8301 };

function ip(...args: string[]): void {
  execFileSync("ip", args, { stdio: ["ignore", "ignore", "pipe"] });
}

/** True when this process may create namespaces: root on Linux with the `ip` tool. */
export function namespacesAvailable(): boolean {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return false;
  try {
    execFileSync("ip", ["netns", "list"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * Claims a 10.77.x.0/24 subnet that no interface of this host uses and no other live harness process holds:
 * the claim is a lock file created exclusively (two test files starting at once must not pick the same one);
 * a lock whose process is gone is taken over.
 */
function claimSubnet(): { subnet: number; release(): void } {
  const used = execFileSync("ip", ["-o", "-4", "addr", "show"]).toString();
  for (let x = 1; x < 250; x++) {
    if (used.includes(`10.77.${x}.`)) continue;
    const lock = join(tmpdir(), `cairn-netns-10.77.${x}.lock`);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(lock, String(process.pid), { flag: "wx" });
        return { subnet: x, release: () => rmSync(lock, { force: true }) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
        const holder = Number(readFileSync(lock, "utf8"));
        if (Number.isInteger(holder) && holder > 0 && alive(holder)) break;
        rmSync(lock, { force: true });
      }
    }
  }
  throw new Error("no free 10.77.x.0/24 subnet");
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes namespaces and bridges left by harness runs that died without cleaning up (SIGKILL): only names
 * of this harness's scheme (`cn<pid>x<n>...`) whose process is gone.
 */
function reapLeftovers(): void {
  const names = execFileSync("ip", ["netns", "list"]).toString();
  for (const match of names.matchAll(/^cn(\d+)x\d+-s\d+/gm)) {
    if (!alive(Number(match[1]))) ip("netns", "del", match[0]);
  }
  const links = execFileSync("ip", ["-o", "link", "show", "type", "bridge"]).toString();
  for (const match of links.matchAll(/^\d+: (cn(\d+)x\d+br)[:@]/gm)) {
    if (!alive(Number(match[2]))) ip("link", "del", match[1]!);
  }
}

let networksMade = 0;

export function namespaceNetwork(size: number): Network {
  reapLeftovers();
  // Interface names are at most 15 characters: "cn" + pid (7 digits at most) + "x<n>" + "br" or "h<i>" fits.
  const tag = `cn${process.pid}x${networksMade++}`;
  const { subnet, release } = claimSubnet();
  const bridge = `${tag}br`;
  const ns = (i: number) => `${tag}-s${i}`;
  const addr = (i: number) => `10.77.${subnet}.${i + 1}`;
  const addresses: NodeAddress[] = Array.from({ length: size }, (_, i) => ({ host: addr(i), ...PORTS }));
  const cuts = new Set<string>();
  let created: number[] = [];
  let bridgeUp = false;

  const teardown = () => {
    for (const i of created) {
      try {
        ip("netns", "del", ns(i));
      } catch {
        // already gone
      }
    }
    created = [];
    if (bridgeUp) {
      try {
        ip("link", "del", bridge);
      } catch {
        // already gone
      }
      bridgeUp = false;
    }
    release();
  };
  process.once("exit", teardown);

  try {
    ip("link", "add", bridge, "type", "bridge");
    bridgeUp = true;
    ip("addr", "add", `10.77.${subnet}.254/24`, "dev", bridge);
    ip("link", "set", bridge, "up");
    for (let i = 0; i < size; i++) {
      ip("netns", "add", ns(i));
      created.push(i);
      const host = `${tag}h${i}`;
      const peer = `${tag}n${i}`;
      ip("link", "add", host, "type", "veth", "peer", "name", peer);
      ip("link", "set", peer, "netns", ns(i));
      ip("link", "set", host, "master", bridge);
      ip("link", "set", host, "up");
      ip("-n", ns(i), "link", "set", "lo", "up");
      ip("-n", ns(i), "link", "set", peer, "name", "eth0");
      ip("-n", ns(i), "addr", "add", `${addr(i)}/24`, "dev", "eth0");
      ip("-n", ns(i), "link", "set", "eth0", "up");
    }
  } catch (err) {
    teardown();
    throw err;
  }

  // netem is a kernel module; some kernels (containers, minimal VMs) lack it.
  let canShape = true;
  try {
    ip("netns", "exec", ns(0), "tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms");
    ip("netns", "exec", ns(0), "tc", "qdisc", "del", "dev", "lo", "root");
  } catch {
    canShape = false;
  }
  const shaped = new Set<number>();

  const route = (op: "add" | "del", from: number, to: number) =>
    ip("-n", ns(from), "route", op, "blackhole", `${addr(to)}/32`);

  return {
    kind: "netns",
    addresses,
    canPartition: true,
    wrap: (i) => ["ip", "netns", "exec", ns(i)],
    cut: async (a, b) => {
      const key = `${Math.min(a, b)}-${Math.max(a, b)}`;
      if (cuts.has(key)) return;
      cuts.add(key);
      route("add", a, b);
      route("add", b, a);
    },
    canShape,
    shape: async (i, delayMs, jitterMs, lossPercent) => {
      shaped.add(i);
      ip(
        "netns",
        "exec",
        ns(i),
        "tc",
        "qdisc",
        "replace",
        "dev",
        "eth0",
        "root",
        "netem",
        "delay",
        `${delayMs}ms`,
        `${jitterMs}ms`,
        "loss",
        `${lossPercent}%`,
      );
    },
    heal: async () => {
      for (const i of shaped) ip("netns", "exec", ns(i), "tc", "qdisc", "del", "dev", "eth0", "root");
      shaped.clear();
      for (const key of cuts) {
        const [a, b] = key.split("-").map(Number) as [number, number];
        route("del", a, b);
        route("del", b, a);
      }
      cuts.clear();
    },
    teardown,
  };
}
