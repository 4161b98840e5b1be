import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateCA, generateCert } from "@cairn/tls";
import { describe, expect, it } from "vitest";
import { parseFlags } from "../src/args.js";
import { HttpClient, httpFlags, kvPath, normalizeAddress, resolveHttpConfig } from "../src/http.js";

const noFlags = parseFlags(httpFlags, []).values;

describe("resolveHttpConfig", () => {
  it("defaults to the local agent", () => {
    expect(resolveHttpConfig(noFlags, {})).toMatchObject({ baseUrl: "http://127.0.0.1:8500", token: "" });
  });

  it("prefers the flag, then CAIRN_*, then CONSUL_*", () => {
    const env = { CAIRN_HTTP_ADDR: "cairn:1", CONSUL_HTTP_ADDR: "consul:2", CONSUL_HTTP_TOKEN: "t-consul" };
    expect(resolveHttpConfig(noFlags, env)).toMatchObject({ baseUrl: "http://cairn:1", token: "t-consul" });
    expect(resolveHttpConfig(noFlags, { CONSUL_HTTP_ADDR: "consul:2" }).baseUrl).toBe("http://consul:2");
    const flags = { ...noFlags, "http-addr": "https://flag:3/", token: "t-flag" };
    expect(resolveHttpConfig(flags, { ...env, CAIRN_HTTP_TOKEN: "t-cairn" })).toMatchObject({
      baseUrl: "https://flag:3",
      token: "t-flag",
    });
    expect(resolveHttpConfig(noFlags, { CAIRN_HTTP_TOKEN: "t-cairn", CONSUL_HTTP_TOKEN: "x" }).token).toBe(
      "t-cairn",
    );
  });

  it("uses https for a bare address when CONSUL_HTTP_SSL is true", () => {
    expect(normalizeAddress("10.0.0.1:8501", true)).toBe("https://10.0.0.1:8501");
    expect(resolveHttpConfig(noFlags, { CONSUL_HTTP_SSL: "true" }).baseUrl).toBe("https://127.0.0.1:8500");
  });
});

describe("TLS and unix socket settings", () => {
  it("reads certificate files named by flags or CONSUL_* variables", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-http-tls-"));
    try {
      const ca = await generateCA();
      const caFile = join(dir, "ca.pem");
      writeFileSync(caFile, ca.cert);
      const config = resolveHttpConfig(noFlags, {
        CONSUL_CACERT: caFile,
        CONSUL_TLS_SERVER_NAME: "server.dc1.consul",
        CONSUL_HTTP_SSL_VERIFY: "false",
      });
      expect(config.tls).toMatchObject({ servername: "server.dc1.consul", rejectUnauthorized: false });
      expect(config.tls.ca?.toString()).toBe(ca.cert.trim());
      expect(() =>
        resolveHttpConfig({ ...noFlags, "client-cert": "/nonexistent/cert.pem", "client-key": caFile }, {}),
      ).toThrow(/^Error loading client-cert: /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads a CA directory, pairs client certificates with their keys, and parses booleans as Go does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cairn-http-tls-"));
    try {
      const [one, two] = [await generateCA(), await generateCA()];
      mkdirSync(join(dir, "cas", "nested"), { recursive: true });
      writeFileSync(join(dir, "cas", "one.pem"), one.cert);
      writeFileSync(join(dir, "cas", "nested", "two.crt"), two.cert);
      const fromPath = resolveHttpConfig({ ...noFlags, "ca-path": join(dir, "cas") }, {});
      expect(fromPath.tls.ca?.toString()).toBe(`${two.cert.trim()}\n${one.cert.trim()}`);
      expect(resolveHttpConfig(noFlags, { CAIRN_CAPATH: join(dir, "cas") }).tls.ca).toEqual(fromPath.tls.ca);
      // A CA file wins over a CA directory, as in consul's client.
      writeFileSync(join(dir, "one.pem"), one.cert);
      expect(
        resolveHttpConfig(
          { ...noFlags, "ca-file": join(dir, "one.pem") },
          { CONSUL_CAPATH: join(dir, "cas") },
        ).tls.ca?.toString(),
      ).toBe(one.cert.trim());
      writeFileSync(join(dir, "cas", "README"), "not a certificate");
      expect(() => resolveHttpConfig({ ...noFlags, "ca-path": join(dir, "cas") }, {})).toThrow(
        `Error loading ca-path: couldn't parse PEM in: ${join(dir, "cas", "README")}`,
      );
      expect(() => resolveHttpConfig({ ...noFlags, "ca-file": join(dir, "cas", "README") }, {})).toThrow(
        /^Error loading ca-file: couldn't parse PEM in: /,
      );

      const client = await generateCert({ kind: "cli", ca: one });
      writeFileSync(join(dir, "cli.pem"), client.cert);
      writeFileSync(join(dir, "cli-key.pem"), client.key);
      writeFileSync(join(dir, "other-key.pem"), one.key);
      const paired = resolveHttpConfig(noFlags, {
        CONSUL_CLIENT_CERT: join(dir, "cli.pem"),
        CONSUL_CLIENT_KEY: join(dir, "cli-key.pem"),
      });
      expect(paired.tls.cert?.toString()).toBe(client.cert);
      expect(paired.tls.key?.toString()).toBe(client.key);
      expect(() => resolveHttpConfig({ ...noFlags, "client-cert": join(dir, "cli.pem") }, {})).toThrow(
        "-client-cert and -client-key must be given together",
      );
      expect(() =>
        resolveHttpConfig(
          { ...noFlags, "client-cert": join(dir, "cli.pem"), "client-key": join(dir, "other-key.pem") },
          {},
        ),
      ).toThrow(
        `the key in ${join(dir, "other-key.pem")} does not match the certificate in ${join(dir, "cli.pem")}`,
      );

      expect(resolveHttpConfig(noFlags, { CONSUL_HTTP_SSL: "1" }).baseUrl).toBe("https://127.0.0.1:8500");
      expect(resolveHttpConfig(noFlags, { CAIRN_HTTP_SSL: "false", CONSUL_HTTP_SSL: "true" }).baseUrl).toBe(
        "http://127.0.0.1:8500",
      );
      expect(resolveHttpConfig(noFlags, { CONSUL_HTTP_SSL_VERIFY: "F" }).tls.rejectUnauthorized).toBe(false);
      expect(() => resolveHttpConfig(noFlags, { CONSUL_HTTP_SSL_VERIFY: "nope" })).toThrow(
        'CONSUL_HTTP_SSL_VERIFY: expected true or false, got "nope"',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("talks HTTP over a unix:// socket", async () => {
    const socketPath = join(tmpdir(), `cairn-cli-${process.pid}.sock`);
    const server = createServer((req, res) => res.end(JSON.stringify({ url: req.url })));
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      const config = resolveHttpConfig({ ...noFlags, "http-addr": `unix://${socketPath}` }, {});
      expect(config.socketPath).toBe(socketPath);
      expect(await new HttpClient(config).json("GET", "/v1/status/leader")).toEqual({
        url: "/v1/status/leader",
      });
    } finally {
      server.close();
    }
  });
});

describe("HttpClient.url", () => {
  it("adds dc, ns and stale (reads only) and bare boolean parameters", () => {
    const client = new HttpClient({
      baseUrl: "http://h:1",
      tls: { rejectUnauthorized: true },
      token: "",
      datacenter: "dc2",
      stale: true,
      namespace: "team",
    });
    expect(client.url("/v1/kv/a", { read: true, query: { recurse: true, index: 12n, wait: "15s" } })).toBe(
      "http://h:1/v1/kv/a?dc=dc2&ns=team&stale&recurse&index=12&wait=15s",
    );
    expect(client.url("/v1/kv/a", { query: { flags: 18446744073709551615n, cas: undefined } })).toBe(
      "http://h:1/v1/kv/a?dc=dc2&ns=team&flags=18446744073709551615",
    );
  });

  it("escapes key segments but keeps the slashes", () => {
    expect(kvPath("a b/c?d#e/%")).toBe("/v1/kv/a%20b/c%3Fd%23e/%25");
    expect(kvPath("")).toBe("/v1/kv/");
  });
});
