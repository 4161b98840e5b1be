// The tls block and Consul's older top-level TLS keys: precedence, inheritance from tls.defaults, the
// refusals at start-up, and the certificate files read and checked (unreadable, mismatched key).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestCertFiles, writeTestCerts } from "../../../../scripts/lib/tls-certs.js";
import { ConfigError, loadAgentConfig } from "../../src/index.js";
import { AgentTls } from "../../src/tls/agent-tls.js";

const env = { HOSTNAME: "test-host" };
let root: string;
let certs: TestCertFiles;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "cairn-tls-config-"));
  certs = await writeTestCerts(root);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const load = (hcl: string) => loadAgentConfig(["-data-dir", root, "-hcl", hcl], env);

function loadError(hcl: string): string {
  try {
    new AgentTls(load(hcl).config);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected the configuration to be refused");
}

describe("tls configuration", () => {
  it("resolves each interface from its own stanza, then tls.defaults", () => {
    const { config } = load(`tls {
      defaults { ca_file = "ca.pem" cert_file = "d.pem" key_file = "d-key.pem" verify_incoming = true tls_min_version = "TLSv1_3" }
      internal_rpc { verify_server_hostname = true }
      https { cert_file = "h.pem" key_file = "h-key.pem" verify_incoming = false }
    }`);
    expect(config.tls.internalRpc).toMatchObject({
      caFile: "ca.pem",
      certFile: "d.pem",
      verifyIncoming: true,
      // verify_server_hostname implies verify_outgoing, as in Consul.
      verifyOutgoing: true,
      verifyServerHostname: true,
      minVersion: "TLSv1_3",
    });
    expect(config.tls.https).toMatchObject({ caFile: "ca.pem", certFile: "h.pem", verifyIncoming: false });
    expect(config.tls.https.keys.certFile).toBe("tls.https.cert_file");
    expect(config.tls.internalRpc.keys.certFile).toBe("tls.defaults.cert_file");
  });

  it("maps the older top-level keys into the tls block, with a warning for each", () => {
    const { config, warnings } = load(`
      ca_file = "ca.pem"
      cert_file = "c.pem"
      key_file = "k.pem"
      verify_incoming_rpc = true
      verify_incoming_https = false
      verify_server_hostname = true
      tls_min_version = "tls12"
    `);
    expect(config.tls.internalRpc).toMatchObject({
      caFile: "ca.pem",
      verifyIncoming: true,
      verifyServerHostname: true,
      minVersion: "TLSv1_2",
    });
    expect(config.tls.https.verifyIncoming).toBe(false);
    expect(warnings).toContain("-hcl flag: 'ca_file' is deprecated; use 'tls.defaults.ca_file' instead");
    expect(warnings).toContain(
      "-hcl flag: 'tls_min_version' value 'tls12' is deprecated; use 'TLSv1_2' instead",
    );
  });

  it("lets the tls block win over an older key saying the same, and refuses one saying otherwise", () => {
    expect(load(`ca_file = "a.pem"\ntls { defaults { ca_file = "a.pem" } }`).config.tls.https.caFile).toBe(
      "a.pem",
    );
    expect(
      loadError(`verify_outgoing = false\ntls { defaults { verify_outgoing = true ca_file = "a.pem" } }`),
    ).toBe(
      "-hcl flag: verify_outgoing (false) conflicts with tls.defaults.verify_outgoing (true); keep only tls.defaults.verify_outgoing",
    );
  });

  it.each([
    [
      `tls { defaults { verify_incoming = true cert_file = "c" key_file = "k" } }`,
      "tls.defaults.verify_incoming: verifying clients needs a CA (ca_file or ca_path)",
    ],
    [
      `tls { https { verify_incoming = true ca_file = "ca" } }`,
      "tls.https.verify_incoming: verifying clients needs this agent's certificate (cert_file and key_file)",
    ],
    [
      `tls { internal_rpc { verify_outgoing = true } }`,
      "tls.internal_rpc.verify_outgoing: verifying servers needs a CA (ca_file or ca_path)",
    ],
    [
      `tls { defaults { cert_file = "c" } }`,
      "tls.internal_rpc.key_file: cert_file and key_file must be given together",
    ],
    [
      `tls { defaults { tls_min_version = "tls12" } }`,
      'tls.defaults.tls_min_version: expected one of "TLSv1_0", "TLSv1_1", "TLSv1_2", "TLSv1_3", got "tls12"',
    ],
    [
      `tls { https { tls_min_version = "TLSv1_3" tls_cipher_suites = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256" } }`,
      "tls.https.tls_cipher_suites: cipher suites cannot be configured with TLSv1_3",
    ],
    [
      `tls { defaults { tls_cipher_suites = "TLS_RSA_WITH_RC4_128_SHA" } }`,
      'tls.defaults.tls_cipher_suites: unsupported cipher suite "TLS_RSA_WITH_RC4_128_SHA"',
    ],
    [
      `ports { https = 8501 }`,
      "ports.https: the HTTPS API needs a certificate (tls.https or tls.defaults cert_file and key_file)",
    ],
  ])("refuses %s", (hcl, message) => {
    expect(loadError(hcl)).toBe(message);
  });

  it("refuses files it cannot read, naming the key and the file", () => {
    const missing = join(root, "missing.pem");
    expect(loadError(`tls { defaults { ca_file = "${missing}" } }`)).toMatch(
      new RegExp(`^tls\\.defaults\\.ca_file: cannot read ${missing}: ENOENT`),
    );
    const notPem = join(root, "not-a-cert.pem");
    writeFileSync(notPem, "hello");
    expect(loadError(`tls { https { ca_file = "${notPem}" } }`)).toBe(
      `tls.https.ca_file: ${notPem} holds no PEM certificate`,
    );
  });

  it("refuses a key that does not belong to its certificate", () => {
    expect(
      loadError(`tls { defaults { cert_file = "${certs.server.cert}" key_file = "${certs.client.key}" } }`),
    ).toBe(
      `tls.defaults.key_file: the key in ${certs.client.key} does not match the certificate in ${certs.server.cert}`,
    );
  });

  it("reads a CA directory (ca_path) and matching certificates", () => {
    const tls = new AgentTls(
      load(
        `tls { defaults { ca_path = "${root}" cert_file = "${certs.server.cert}" key_file = "${certs.server.key}" verify_incoming = true verify_outgoing = true } }`,
      ).config,
    );
    expect(tls.rpcDialsTls).toBe(true);
    expect(tls.transportTls().incoming()?.verifyClients).toBe(true);
  });

  it("keeps the certificates it has when a reload finds a bad one, and takes good ones", () => {
    const good = `tls { defaults { ca_file = "${certs.ca}" cert_file = "${certs.server.cert}" key_file = "${certs.server.key}" } }`;
    const tls = new AgentTls(load(good).config);
    const before = tls.transportTls().incoming()?.options;
    const mismatched = `tls { defaults { ca_file = "${certs.ca}" cert_file = "${certs.server.cert}" key_file = "${certs.client.key}" } }`;
    expect(() => tls.reload(load(mismatched).config.tls)).toThrow(ConfigError);
    expect(tls.transportTls().incoming()?.options).toBe(before);
    tls.reload(load(good).config.tls);
    expect(tls.transportTls().incoming()?.options).not.toBe(before);
  });
});
