import dgram from "node:dgram";
import { isIPv6 } from "node:net";
import type { CheckDefinition } from "@cairn/api";
import { errnoText } from "./go-errors.js";
import type { Probe, ProbeResult } from "./probes.js";

/**
 * A UDP check as Consul runs it: an empty datagram to `UDP` from a connected socket, then a wait for an
 * answer. A reply, or silence for the whole timeout, is passing (UDP services need not answer); an error,
 * which is how the ICMP port-unreachable of a closed port reaches a connected socket, is critical.
 */
export function udpProbe(def: CheckDefinition, timeoutMs: number): Probe {
  const colon = def.UDP.lastIndexOf(":");
  const host = def.UDP.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
  const port = Number(def.UDP.slice(colon + 1));
  const success: ProbeResult = { status: "passing", output: `UDP connect ${def.UDP}: Success` };
  return () =>
    new Promise<ProbeResult>((resolve) => {
      const socket = dgram.createSocket(isIPv6(host) ? "udp6" : "udp4");
      let settled = false;
      const finish = (result: ProbeResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.close();
        resolve(result);
      };
      const timer = setTimeout(() => finish(success), timeoutMs);
      timer.unref();
      socket.on("message", () => finish(success));
      socket.on("error", (err) => {
        const local = localAddress(socket);
        finish({ status: "critical", output: `read udp ${local}->${def.UDP}: read: ${errnoText(err)}` });
      });
      socket.connect(port, host, () => {
        socket.send(Buffer.alloc(0), (err) => {
          if (err) finish({ status: "critical", output: `write udp ${def.UDP}: ${errnoText(err)}` });
        });
      });
    });
}

function localAddress(socket: dgram.Socket): string {
  try {
    const { address, port } = socket.address();
    return isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`;
  } catch {
    return "";
  }
}
