import { createPrivateKey, X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { caFileNames, certFileNames, certIdentity, generateCA, generateCert } from "../src/index.js";

const DAY_MS = 24 * 60 * 60 * 1000;

describe("certificate generation", () => {
  it("creates a P-256 CA valid for Consul's default 1825 days", async () => {
    const ca = await generateCA();
    const cert = new X509Certificate(ca.cert);
    expect(cert.ca).toBe(true);
    expect(cert.publicKey.asymmetricKeyDetails?.namedCurve).toBe("prime256v1");
    expect(ca.key).toMatch(/^-----BEGIN EC PRIVATE KEY-----/);
    expect(cert.checkPrivateKey(createPrivateKey(ca.key))).toBe(true);
    const days = (Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / DAY_MS;
    expect(Math.round(days)).toBe(1825);
    expect(cert.verify(cert.publicKey)).toBe(true);
  });

  it("gives server certificates server.<dc>.<domain>, localhost, 127.0.0.1 and the extra names", async () => {
    const ca = await generateCA();
    const server = await generateCert({
      kind: "server",
      ca,
      datacenter: "east",
      domain: "cairn",
      additionalDnsNames: ["node1.example.com"],
      additionalIpAddresses: ["10.1.2.3"],
    });
    const cert = new X509Certificate(server.cert);
    expect(cert.subject).toBe("CN=server.east.cairn");
    expect(cert.subjectAltName).toBe(
      "DNS:node1.example.com, DNS:server.east.cairn, DNS:localhost, IP Address:10.1.2.3, IP Address:127.0.0.1",
    );
    expect(cert.checkHost("server.east.cairn")).toBe("server.east.cairn");
    expect(cert.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(cert.checkIssued(new X509Certificate(ca.cert))).toBe(true);
    expect(cert.verify(new X509Certificate(ca.cert).publicKey)).toBe(true);
    expect(cert.keyUsage?.sort()).toEqual(["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"]);
    expect(Math.round((Date.parse(cert.validTo) - Date.parse(cert.validFrom)) / DAY_MS)).toBe(365);
  });

  it("client certificates cannot pose as servers, cli certificates carry no IPs", async () => {
    const ca = await generateCA();
    const client = new X509Certificate((await generateCert({ kind: "client", ca })).cert);
    expect(client.checkHost("server.dc1.consul")).toBeUndefined();
    expect(client.checkHost("client.dc1.consul")).toBe("client.dc1.consul");
    const cli = new X509Certificate(
      (await generateCert({ kind: "cli", ca, additionalIpAddresses: ["10.0.0.1"] })).cert,
    );
    expect(cli.subjectAltName).toBe("DNS:cli.dc1.consul, DNS:localhost");
  });

  it("builds expired certificates on request and refuses a CA key that does not match", async () => {
    const ca = await generateCA();
    const other = await generateCA();
    const expired = await generateCert({
      kind: "server",
      ca,
      notBefore: new Date(Date.now() - 10 * DAY_MS),
      notAfter: new Date(Date.now() - DAY_MS),
    });
    expect(Date.parse(new X509Certificate(expired.cert).validTo)).toBeLessThan(Date.now());
    await expect(generateCert({ kind: "server", ca: { cert: ca.cert, key: other.key } })).rejects.toThrow(
      "the CA key does not match the CA certificate",
    );
    await expect(generateCert({ kind: "server", ca, additionalIpAddresses: ["nope"] })).rejects.toThrow(
      'invalid IP address "nope"',
    );
    await expect(generateCert({ kind: "client", ca: { cert: "garbage", key: ca.key } })).rejects.toThrow(
      "no PEM-encoded certificate",
    );
  });

  it("adds name constraints for the domain and localhost", async () => {
    const ca = await generateCA({
      nameConstraint: true,
      domain: "cairn",
      additionalNameConstraints: ["example.com"],
    });
    const cert = new X509Certificate(ca.cert);
    expect(cert.toLegacyObject().raw.includes(Buffer.from("example.com"))).toBe(true);
    const server = await generateCert({ kind: "server", ca, domain: "cairn" });
    expect(new X509Certificate(server.cert).verify(cert.publicKey)).toBe(true);
  });

  it("names files as Consul does", () => {
    expect(caFileNames()).toEqual({ cert: "consul-agent-ca.pem", key: "consul-agent-ca-key.pem" });
    expect(certFileNames("server", 0)).toEqual({
      cert: "dc1-server-consul-0.pem",
      key: "dc1-server-consul-0-key.pem",
    });
    expect(certFileNames("cli", 3, "east", "cairn").cert).toBe("east-cli-cairn-3.pem");
    expect(certIdentity("cli").extKeyUsage).toEqual([]);
  });
});
