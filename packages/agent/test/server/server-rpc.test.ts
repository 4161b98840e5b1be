import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSecureContext } from "node:tls";
import { RpcError, type TransportTls } from "@cairn/raft";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { type TestCertFiles, writeTestCerts } from "../../../../scripts/lib/tls-certs.js";
import { ServerPort } from "../../src/server-port/server-port.js";
import { ServerRpc } from "../../src/server-rpc/server-rpc.js";

const log = pino({ level: "silent" });
const opened: { rpc: ServerRpc; port: ServerPort }[] = [];

afterEach(async () => {
  for (const s of opened.splice(0)) {
    s.rpc.close();
    await s.port.close();
  }
});

/** One server's RPC on a port of its own; `book` is the shared address book (Raft's, in an agent). */
async function server(
  id: string,
  book: Map<string, string>,
  o: { port?: number; tls?: TransportTls; cluster?: string } = {},
): Promise<{ rpc: ServerRpc; port: ServerPort }> {
  const port = await ServerPort.open("127.0.0.1", o.port ?? 0, o.tls, log);
  const rpc = new ServerRpc({
    nodeId: id,
    clusterId: o.cluster ?? "dc1",
    addressOf: (peer) => book.get(peer),
    ...(o.tls ? { tls: o.tls } : {}),
    log,
  });
  rpc.serve(port);
  book.set(id, `127.0.0.1:${port.port}`);
  const s = { rpc, port };
  opened.push(s);
  return s;
}

async function stop(s: { rpc: ServerRpc; port: ServerPort }): Promise<void> {
  opened.splice(opened.indexOf(s), 1);
  s.rpc.close();
  await s.port.close();
}

describe("server-to-server RPC", () => {
  it("answers requests, reports remote errors, unknown methods and deadlines", async () => {
    const book = new Map<string, string>();
    const a = await server("a", book);
    const b = await server("b", book);
    b.rpc.handle("echo", (payload, from) => ({ payload, from }));
    b.rpc.handle("fail", () => {
      const err = new Error("not the leader") as Error & { data: unknown };
      err.name = "NotLeaderError";
      err.data = { leader: "c" };
      throw err;
    });
    b.rpc.handle("hang", () => new Promise(() => {}));

    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        a.rpc.request("b", "echo", { n: i, bytes: Buffer.from([i]) }, 5000),
      ),
    );
    expect(answers[7]).toEqual({ payload: { n: 7, bytes: Buffer.from([7]) }, from: "a" });

    const failed = await a.rpc.request("b", "fail", null, 5000).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(RpcError);
    expect(failed).toMatchObject({
      failure: "remote",
      remoteName: "NotLeaderError",
      message: "not the leader",
      remoteData: { leader: "c" },
    });
    await expect(a.rpc.request("b", "nope", null, 5000)).rejects.toMatchObject({ failure: "no-handler" });
    await expect(a.rpc.request("b", "hang", null, 100)).rejects.toMatchObject({ failure: "timeout" });
    await expect(a.rpc.request("zz", "echo", null, 100)).rejects.toMatchObject({ failure: "unconnected" });
  });

  it("fails requests in flight when the peer goes, those made while it is down at once, and reaches it again once it is back", async () => {
    const book = new Map<string, string>();
    const a = await server("a", book);
    let b = await server("b", book);
    b.rpc.handle("hang", () => new Promise(() => {}));
    b.rpc.handle("echo", (p) => p);
    expect(await a.rpc.request("b", "echo", 1, 5000)).toBe(1);
    const inFlight = a.rpc.request("b", "hang", null, 30_000);
    const port = b.port.port;
    await stop(b);
    await expect(inFlight).rejects.toMatchObject({ failure: "unreachable" });

    // A request made while the peer is down fails as soon as the dial does, not at its own deadline: it
    // never left, so a caller holding for a leader may look for one again (or send it elsewhere).
    const started = Date.now();
    const down = a.rpc.request("b", "echo", "down", 30_000);
    await expect(down).rejects.toMatchObject({ failure: "unconnected" });
    expect(Date.now() - started).toBeLessThan(10_000);
    b = await server("b", book, { port });
    b.rpc.handle("echo", (p) => p);
    expect(await a.rpc.request("b", "echo", "again", 5000)).toBe("again");
  });

  it("refuses a server of another datacenter", async () => {
    const book = new Map<string, string>();
    const a = await server("a", book, { cluster: "dc2" });
    const b = await server("b", book);
    b.rpc.handle("echo", (p) => p);
    await expect(a.rpc.request("b", "echo", 1, 2000)).rejects.toBeInstanceOf(RpcError);
  });

  describe("over TLS with verify_incoming", () => {
    let dir = "";
    let certs: TestCertFiles;
    afterEach(() => rm(dir, { recursive: true, force: true }));

    const tlsOf = (pair: { cert: string; key: string } | undefined, refuse?: string): TransportTls => {
      const ca = readFileSync(certs.ca);
      const own = pair ? { cert: readFileSync(pair.cert), key: readFileSync(pair.key) } : {};
      return {
        incoming: () => ({ options: { ...own, ca }, verifyClients: true }),
        outgoing: () => ({ context: createSecureContext({ ...own, ca }), verify: true }),
        ...(refuse === undefined ? {} : { authorizeServer: () => refuse }),
      };
    };

    it("serves a peer with a server certificate and refuses one without a certificate", async () => {
      dir = await mkdtemp(join(tmpdir(), "cairn-server-rpc-"));
      certs = await writeTestCerts(dir);
      const book = new Map<string, string>();
      const a = await server("a", book, { tls: tlsOf(certs.server) });
      const b = await server("b", book, { tls: tlsOf(certs.server) });
      b.rpc.handle("echo", (p) => p);
      expect(await a.rpc.request("b", "echo", "secret", 5000)).toBe("secret");

      // No client certificate: the TLS handshake fails, the request never left.
      const anonymous = await server("anon", book, { tls: tlsOf(undefined) });
      await expect(anonymous.rpc.request("b", "echo", "x", 3000)).rejects.toBeInstanceOf(RpcError);

      // A verified certificate that is not a server's (authorizeServer says why): refused with 403.
      const strict = await server("strict", book, { tls: tlsOf(certs.server, "not a server certificate") });
      strict.rpc.handle("echo", (p) => p);
      await expect(a.rpc.request("strict", "echo", "x", 3000)).rejects.toBeInstanceOf(RpcError);
    });
  });
});
