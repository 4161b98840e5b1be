import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
  it("reads certificate files named by flags or CONSUL_* variables", () => {
    const ca = join(tmpdir(), `cairn-ca-${process.pid}.pem`);
    writeFileSync(ca, "CA PEM");
    const config = resolveHttpConfig(noFlags, {
      CONSUL_CACERT: ca,
      CONSUL_TLS_SERVER_NAME: "server.dc1.consul",
      CONSUL_HTTP_SSL_VERIFY: "false",
    });
    expect(config.tls).toMatchObject({ servername: "server.dc1.consul", rejectUnauthorized: false });
    expect(config.tls.ca?.toString()).toBe("CA PEM");
    expect(() => resolveHttpConfig({ ...noFlags, "client-cert": "/nonexistent/cert.pem" }, {})).toThrow(
      /^Error loading client-cert: /,
    );
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
