// Servers' links over TLS with real handshakes: verified both ways they carry Raft messages; a peer whose
// certificate another CA signed, or a client certificate dialing the Raft path, is refused by both the
// dialer and the acceptor, each logging why.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSecureContext } from "node:tls";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type TestCertFiles, writeTestCerts } from "../../../../scripts/lib/tls-certs.js";
import { certificateNameError, type TransportTls } from "../../src/transport/tls.js";
import { heartbeat, startServer, type TestServer, waitFor } from "./helpers.js";

let dir: string;
let certs: TestCertFiles;
const servers: TestServer[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cairn-transport-tls-"));
  certs = await writeTestCerts(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.transport.close()));
});

/** verify_incoming, verify_outgoing and verify_server_hostname with `pair` as this server's certificate. */
function verifying(pair: { cert: string; key: string }): TransportTls {
  const options = { ca: readFileSync(certs.ca), cert: readFileSync(pair.cert), key: readFileSync(pair.key) };
  const context = createSecureContext(options);
  return {
    incoming: () => ({ options, verifyClients: true }),
    outgoing: () => ({ context, verify: true, serverName: "server.dc1.consul" }),
    authorizeServer: (peer) => certificateNameError(peer, "server.dc1.consul")?.message,
  };
}

async function pair(a: { cert: string; key: string }, b: { cert: string; key: string }) {
  const first = await startServer("a", { tls: verifying(a) });
  const second = await startServer("b", { tls: verifying(b) });
  servers.push(first, second);
  first.transport.setPeer("b", `127.0.0.1:${second.transport.port}`);
  second.transport.setPeer("a", `127.0.0.1:${first.transport.port}`);
  return [first, second] as const;
}

const said = (s: TestServer, text: RegExp) =>
  s.logs.some((line) => text.test(`${line.msg} ${String(line.reason ?? line.err ?? "")}`));

describe("ServerTransport over TLS", () => {
  it("carries Raft messages between servers verified both ways", async () => {
    const [a, b] = await pair(certs.server, certs.server);
    await waitFor(() => a.transport.isConnected("b") && b.transport.isConnected("a"));
    a.transport.send("b", heartbeat("a", "b", 7));
    await waitFor(() => b.batches.length > 0);
    expect(b.batches[0]!.messages[0]).toMatchObject({ type: "heartbeat", commit: 7 });
  });

  it("refuses a server whose certificate another CA signed, in both directions", async () => {
    const [a, b] = await pair(certs.server, certs.otherCaServer);
    await waitFor(
      () => said(a, /refused the server's certificate/) && said(a, /client certificate not verified/),
    );
    expect(a.transport.isConnected("b")).toBe(false);
    expect(b.transport.isConnected("a")).toBe(false);
  });

  it("refuses a client certificate posing as a server", async () => {
    const [a, b] = await pair(certs.server, certs.client);
    await waitFor(() => said(a, /not valid for server\.dc1\.consul/) && said(b, /the server refused/));
    expect(a.transport.isConnected("b")).toBe(false);
    expect(b.transport.isConnected("a")).toBe(false);
  });

  it("accepts plaintext and TLS peers alike when clients need not be verified (a rolling change)", async () => {
    const options = {
      ca: readFileSync(certs.ca),
      cert: readFileSync(certs.server.cert),
      key: readFileSync(certs.server.key),
    };
    const lenient: TransportTls = {
      incoming: () => ({ options, verifyClients: false }),
      outgoing: () => undefined,
    };
    const dialsTls: TransportTls = {
      incoming: () => undefined,
      outgoing: () => ({ context: createSecureContext({ ca: options.ca }), verify: true }),
    };
    const accepting = await startServer("a", { tls: lenient });
    const plain = await startServer("b");
    const secure = await startServer("c", { tls: dialsTls });
    servers.push(accepting, plain, secure);
    plain.transport.setPeer("a", `127.0.0.1:${accepting.transport.port}`);
    secure.transport.setPeer("a", `127.0.0.1:${accepting.transport.port}`);
    await waitFor(() => plain.transport.isConnected("a") && secure.transport.isConnected("a"));
    plain.transport.send("a", heartbeat("b", "a", 1));
    secure.transport.send("a", heartbeat("c", "a", 2));
    await waitFor(() => accepting.batches.length >= 2);
    expect(accepting.batches.map((b) => b.from).sort()).toEqual(["b", "c"]);
  });

  it("refuses an expired certificate", async () => {
    const [a] = await pair(certs.server, certs.expiredServer);
    await waitFor(() => said(a, /CERT_HAS_EXPIRED|certificate has expired/));
    expect(a.transport.isConnected("b")).toBe(false);
  });
});
