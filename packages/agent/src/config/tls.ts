import type { ConfigSourceValues } from "./schema.js";
import { ConfigError } from "./source.js";
import type { TlsSettings, TlsStanzaSettings, TlsVersion } from "./types.js";

type Stanza = NonNullable<NonNullable<ConfigSourceValues["tls"]>["defaults"]>;
type StanzaName = "internal_rpc" | "https" | "grpc";

const VERSIONS: readonly TlsVersion[] = ["TLSv1_0", "TLSv1_1", "TLSv1_2", "TLSv1_3"];

/**
 * Consul's (Go crypto/tls) cipher suite names → OpenSSL's, for TLS 1.0–1.2. Consul's defaults leave the
 * choice to Go; Cairn leaves it to OpenSSL unless `tls_cipher_suites` is set.
 */
const CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: "ECDHE-ECDSA-AES128-GCM-SHA256",
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: "ECDHE-ECDSA-AES256-GCM-SHA384",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-ECDSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: "ECDHE-RSA-AES128-GCM-SHA256",
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: "ECDHE-RSA-AES256-GCM-SHA384",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: "ECDHE-RSA-CHACHA20-POLY1305",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: "ECDHE-ECDSA-AES128-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: "ECDHE-ECDSA-AES256-SHA",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: "ECDHE-RSA-AES128-SHA",
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: "ECDHE-RSA-AES256-SHA",
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: "ECDHE-ECDSA-AES128-SHA256",
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: "ECDHE-RSA-AES128-SHA256",
};

/**
 * Resolves the `tls` block as Consul does: each of `internal_rpc`, `https` and `grpc` takes every key it does
 * not set from `defaults` (the top-level keys of older configurations were moved into the block already).
 * `verify_server_hostname` implies `verify_outgoing`. Pure: the files are read by the agent's TLS module.
 */
export function resolveTls(v: ConfigSourceValues, httpsPort: number): TlsSettings {
  const tls = v.tls ?? {};
  const defaults: Stanza = tls.defaults ?? {};
  const internalRpc = stanza("internal_rpc", defaults, tls.internal_rpc ?? {});
  const verifyServerHostname = tls.internal_rpc?.verify_server_hostname ?? false;
  const settings: TlsSettings = {
    internalRpc: {
      ...internalRpc,
      verifyOutgoing: internalRpc.verifyOutgoing || verifyServerHostname,
      verifyServerHostname,
    },
    https: stanza("https", defaults, tls.https ?? {}),
  };
  if (httpsPort >= 0 && settings.https.certFile === undefined)
    fail("ports.https: the HTTPS API needs a certificate (tls.https or tls.defaults cert_file and key_file)");
  const rpc = settings.internalRpc;
  if (rpc.verifyOutgoing && rpc.caFile === undefined && rpc.caPath === undefined) {
    const key = verifyServerHostname ? "verify_server_hostname" : "verify_outgoing";
    fail(`tls.internal_rpc.${key}: verifying servers needs a CA (ca_file or ca_path)`);
  }
  return settings;
}

function stanza(name: StanzaName, defaults: Stanza, own: Stanza): TlsStanzaSettings {
  const pick = <K extends keyof Stanza>(key: K): { value: Stanza[K]; key: string } =>
    own[key] !== undefined
      ? { value: own[key], key: `tls.${name}.${key}` }
      : { value: defaults[key], key: `tls.defaults.${key}` };
  const ca = pick("ca_file");
  const caPath = pick("ca_path");
  const cert = pick("cert_file");
  const key = pick("key_file");
  const version = pick("tls_min_version");
  const suites = pick("tls_cipher_suites");
  const verifyIncoming = pick("verify_incoming");
  const minVersion = tlsVersion(version.key, version.value);
  const cipherSuites = cipherSuiteList(suites.key, suites.value, minVersion);
  const nonEmpty = (value: string | undefined) => (value === "" ? undefined : value);
  const settings: TlsStanzaSettings = {
    caFile: nonEmpty(ca.value),
    caPath: nonEmpty(caPath.value),
    certFile: nonEmpty(cert.value),
    keyFile: nonEmpty(key.value),
    verifyIncoming: verifyIncoming.value ?? false,
    verifyOutgoing: pick("verify_outgoing").value ?? false,
    minVersion,
    cipherSuites,
    keys: { caFile: ca.key, caPath: caPath.key, certFile: cert.key, keyFile: key.key },
  };
  if ((settings.certFile === undefined) !== (settings.keyFile === undefined)) {
    const missing = settings.certFile === undefined ? "cert_file" : "key_file";
    fail(`tls.${name}.${missing}: cert_file and key_file must be given together`);
  }
  if (settings.verifyIncoming && name !== "grpc") {
    if (settings.caFile === undefined && settings.caPath === undefined)
      fail(`${verifyIncoming.key}: verifying clients needs a CA (ca_file or ca_path)`);
    if (settings.certFile === undefined)
      fail(
        `${verifyIncoming.key}: verifying clients needs this agent's certificate (cert_file and key_file)`,
      );
  }
  return settings;
}

function tlsVersion(key: string, value: string | undefined): TlsVersion {
  if (value === undefined || value === "") return "TLSv1_2";
  const version = VERSIONS.find((v) => v === value);
  if (version === undefined)
    fail(`${key}: expected one of ${VERSIONS.map((v) => `"${v}"`).join(", ")}, got ${JSON.stringify(value)}`);
  return version;
}

function cipherSuiteList(key: string, value: string | undefined, minVersion: TlsVersion): string[] {
  const names = (value ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  if (names.length === 0) return [];
  // As Consul: TLS 1.3's suites are fixed by the protocol, so a list would silently do nothing.
  if (minVersion === "TLSv1_3") fail(`${key}: cipher suites cannot be configured with TLSv1_3`);
  return names.map(
    (name) => CIPHER_SUITES[name] ?? fail(`${key}: unsupported cipher suite ${JSON.stringify(name)}`),
  );
}

function fail(message: string): never {
  throw new ConfigError(message);
}
