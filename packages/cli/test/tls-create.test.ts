// `cairn tls ca create` / `cairn tls cert create` end to end: the files consul writes, their modes,
// names, SANs and chains (checked with node:crypto), and consul's refusals.
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cairn, cairnInProcess } from "./helpers/cairn.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cairn-tls-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (...args: string[]) => cairnInProcess(["tls", ...args], { cwd: dir });
const cert = (name: string) => new X509Certificate(readFileSync(join(dir, name)));
const mode = (name: string) => statSync(join(dir, name)).mode & 0o777;

describe("cairn tls", () => {
  it("creates a CA and refuses to overwrite it", async () => {
    const created = await run("ca", "create");
    expect(created).toMatchObject({
      code: 0,
      stdout: "==> Saved consul-agent-ca.pem\n==> Saved consul-agent-ca-key.pem\n",
    });
    const ca = cert("consul-agent-ca.pem");
    expect(ca.ca).toBe(true);
    expect(ca.checkPrivateKey(createPrivateKey(readFileSync(join(dir, "consul-agent-ca-key.pem"))))).toBe(
      true,
    );
    expect(mode("consul-agent-ca-key.pem")).toBe(0o600);
    expect(mode("consul-agent-ca.pem")).toBe(0o644);
    const before = readFileSync(join(dir, "consul-agent-ca.pem"), "utf8");
    expect(await run("ca", "create")).toMatchObject({
      code: 1,
      stderr: "consul-agent-ca.pem already exists.\n",
    });
    expect(readFileSync(join(dir, "consul-agent-ca.pem"), "utf8")).toBe(before);
    // A key alone also blocks: the pair must come from one run.
    rmSync(join(dir, "consul-agent-ca.pem"));
    expect(await run("ca", "create")).toMatchObject({
      code: 1,
      stderr: "consul-agent-ca-key.pem already exists.\n",
    });
  });

  it("creates server, client and cli certificates with consul's names, SANs and incrementing index", async () => {
    expect((await run("ca", "create", "-days", "30")).code).toBe(0);
    const server = await run(
      "cert",
      "create",
      "-server",
      "-additional-dnsname",
      "node1.example.com",
      "-additional-ipaddress",
      "10.0.0.7",
      "-additional-ipaddress=10.0.0.8",
    );
    expect(server.code).toBe(0);
    expect(server.stdout).toBe(
      [
        "==> WARNING: Server Certificates grants authority to become a",
        "    server and access all state in the cluster including root keys",
        "    and all ACL tokens. Do not distribute them to production hosts",
        "    that are not server nodes. Store them as securely as CA keys.",
        "==> Using consul-agent-ca.pem and consul-agent-ca-key.pem",
        "==> Saved dc1-server-consul-0.pem",
        "==> Saved dc1-server-consul-0-key.pem",
        "",
      ].join("\n"),
    );
    expect((await run("cert", "create", "-server")).stdout).toContain("==> Saved dc1-server-consul-1.pem\n");
    expect((await run("cert", "create", "-client")).stdout).toBe(
      "==> Using consul-agent-ca.pem and consul-agent-ca-key.pem\n==> Saved dc1-client-consul-0.pem\n==> Saved dc1-client-consul-0-key.pem\n",
    );
    expect((await run("cert", "create", "-cli")).code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([
      "consul-agent-ca-key.pem",
      "consul-agent-ca.pem",
      "dc1-cli-consul-0-key.pem",
      "dc1-cli-consul-0.pem",
      "dc1-client-consul-0-key.pem",
      "dc1-client-consul-0.pem",
      "dc1-server-consul-0-key.pem",
      "dc1-server-consul-0.pem",
      "dc1-server-consul-1-key.pem",
      "dc1-server-consul-1.pem",
    ]);

    const ca = cert("consul-agent-ca.pem");
    const s0 = cert("dc1-server-consul-0.pem");
    expect(s0.subject).toBe("CN=server.dc1.consul");
    expect(s0.subjectAltName).toBe(
      "DNS:node1.example.com, DNS:server.dc1.consul, DNS:localhost, IP Address:10.0.0.7, IP Address:10.0.0.8, IP Address:127.0.0.1",
    );
    for (const name of [
      "dc1-server-consul-0.pem",
      "dc1-server-consul-1.pem",
      "dc1-client-consul-0.pem",
      "dc1-cli-consul-0.pem",
    ]) {
      const c = cert(name);
      expect(c.checkIssued(ca), name).toBe(true);
      expect(c.verify(ca.publicKey), name).toBe(true);
      expect(
        c.checkPrivateKey(createPrivateKey(readFileSync(join(dir, name.replace(".pem", "-key.pem"))))),
      ).toBe(true);
      expect(mode(name.replace(".pem", "-key.pem"))).toBe(0o600);
    }
    expect(cert("dc1-client-consul-0.pem").checkHost("server.dc1.consul")).toBeUndefined();
    expect(cert("dc1-cli-consul-0.pem").subjectAltName).toBe("DNS:cli.dc1.consul, DNS:localhost");
    // The CA was made for 30 days; certificates default to 365 regardless, as consul's do.
    expect(Math.round((Date.parse(s0.validTo) - Date.parse(s0.validFrom)) / 86_400_000)).toBe(365);
  });

  it("names files and SANs after -dc, -domain and -node, with -ca and -key pointing elsewhere", async () => {
    expect((await run("ca", "create", "-domain", "cairn")).stdout).toContain("==> Saved cairn-agent-ca.pem");
    const out = await run(
      "cert",
      "create",
      "-server",
      "-dc",
      "east",
      "-domain",
      "cairn",
      "-node",
      "n1",
      "-days",
      "10",
    );
    expect(out.stdout).toContain(
      "==> Using cairn-agent-ca.pem and cairn-agent-ca-key.pem\n==> Saved east-server-cairn-0.pem\n",
    );
    const c = cert("east-server-cairn-0.pem");
    expect(c.subjectAltName).toBe(
      "DNS:n1.server.east.cairn, DNS:server.east.cairn, DNS:localhost, IP Address:127.0.0.1",
    );
    expect(Math.round((Date.parse(c.validTo) - Date.parse(c.validFrom)) / 86_400_000)).toBe(10);
    const other = await run(
      "cert",
      "create",
      "-client",
      "-ca",
      join(dir, "cairn-agent-ca.pem"),
      "-key",
      join(dir, "cairn-agent-ca-key.pem"),
    );
    expect(other.code).toBe(0);
    expect(cert("dc1-client-consul-0.pem").checkIssued(cert("cairn-agent-ca.pem"))).toBe(true);
  });

  it("refuses bad input with consul's messages and writes nothing", async () => {
    expect(await run("cert", "create")).toMatchObject({
      code: 1,
      stderr: "Please provide either -server, -client, or -cli\n",
    });
    expect(await run("cert", "create", "-server", "-client")).toMatchObject({
      code: 1,
      stderr: "Please provide either -server, -client, or -cli\n",
    });
    expect(await run("cert", "create", "-client", "-node", "x")).toMatchObject({
      code: 1,
      stderr: "-node requires -server\n",
    });
    const missing = await run("cert", "create", "-server");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^Error reading CA: ENOENT: no such file or directory/);
    expect((await run("ca", "create")).code).toBe(0);
    expect(await run("cert", "create", "-server", "-additional-ipaddress", "300.1.1.1")).toMatchObject({
      code: 1,
      stderr: 'invalid IP address "300.1.1.1"\n',
    });
    expect(await run("cert", "create", "-cli", "-days", "0")).toMatchObject({
      code: 1,
      stderr: "-days must be a positive number of days, got 0\n",
    });
    // A CA key that does not belong to the CA certificate.
    await cairnInProcess(["tls", "ca", "create", "-domain", "other"], { cwd: dir });
    const mismatch = await run("cert", "create", "-client", "-key", "other-agent-ca-key.pem");
    expect(mismatch).toMatchObject({ code: 1 });
    expect(mismatch.stderr).toBe("the CA key does not match the CA certificate\n");
    writeFileSync(join(dir, "garbage.pem"), "not a key");
    expect((await run("cert", "create", "-client", "-key", "garbage.pem")).stderr).toBe(
      "no PEM-encoded private key found\n",
    );
    expect(readdirSync(dir).filter((f) => f.startsWith("dc1-"))).toEqual([]);
  });

  it("runs as the cairn binary in the working directory", async () => {
    const result = await cairn(["tls", "ca", "create"], { cwd: dir });
    expect(result).toMatchObject({
      code: 0,
      stdout: "==> Saved consul-agent-ca.pem\n==> Saved consul-agent-ca-key.pem\n",
    });
    expect(cert("consul-agent-ca.pem").ca).toBe(true);
  });
});
