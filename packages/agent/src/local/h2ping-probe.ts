import http2 from "node:http2";
import { isIP } from "node:net";
import type { CheckDefinition } from "@cairn/api";
import type { Probe, ProbeResult } from "./probes.js";

/**
 * An H2PING check as Consul runs it: an HTTP/2 connection to `H2PING` (TLS with ALPN h2 when
 * `H2PingUseTLS`, the default; cleartext HTTP/2 with prior knowledge otherwise) and one PING frame. Passing
 * when the PING is acknowledged within the timeout; a failed connection, TLS handshake or PING is critical.
 */
export function h2pingProbe(def: CheckDefinition, timeoutMs: number): Probe {
  const authority = `${def.H2PingUseTLS ? "https" : "http"}://${def.H2PING}`;
  const host = def.H2PING.slice(0, def.H2PING.lastIndexOf(":")).replace(/^\[(.*)\]$/, "$1");
  const servername = def.TLSServerName || (isIP(host) ? undefined : host);
  return () =>
    new Promise<ProbeResult>((resolve) => {
      let connected = false;
      let settled = false;
      const finish = (result: ProbeResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        session.destroy();
        resolve(result);
      };
      const fail = (err: Error) =>
        finish({
          status: "critical",
          output: connected
            ? `HTTP2 ping failed: ${err.message}`
            : `Failed to dial to ${def.H2PING}: ${err.message}`,
        });
      const session = http2.connect(authority, {
        rejectUnauthorized: !def.TLSSkipVerify,
        ...(servername ? { servername } : {}),
      });
      const timer = setTimeout(
        () => fail(new Error(`context deadline exceeded (timeout ${timeoutMs} ms)`)),
        timeoutMs,
      );
      timer.unref();
      session.on("error", fail);
      session.on("close", () => fail(new Error("connection closed before the PING was acknowledged")));
      session.on("connect", () => {
        connected = true;
        session.ping((err) => {
          if (err) fail(err);
          else finish({ status: "passing", output: "HTTP2 ping was successful" });
        });
      });
    });
}
