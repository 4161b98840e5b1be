import { createPrivateKey, X509Certificate } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  createSecureContext,
  DEFAULT_CIPHERS,
  type SecureContext,
  type SecureContextOptions,
} from "node:tls";
import { ConfigError, type TlsStanzaSettings } from "../config/index.js";

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * One interface's certificates, read and checked: the options a listener takes (undefined without a
 * certificate) and the context a dialer uses (undefined without a CA or certificate).
 */
export interface StanzaMaterial<S extends TlsStanzaSettings = TlsStanzaSettings> {
  readonly settings: S;
  readonly server: SecureContextOptions | undefined;
  readonly client: SecureContext | undefined;
  readonly hasCa: boolean;
}

/**
 * Reads an interface's CA, certificate and key. Throws ConfigError naming the key and the file when a file
 * cannot be read or holds no certificate, or when the key does not belong to the certificate.
 */
export function loadStanza<S extends TlsStanzaSettings>(settings: S): StanzaMaterial<S> {
  const ca = [
    ...(settings.caFile ? certificatesIn(settings.keys.caFile, settings.caFile) : []),
    ...(settings.caPath ? certificatesInDirectory(settings.keys.caPath, settings.caPath) : []),
  ];
  let pair: { cert: Buffer; key: Buffer } | undefined;
  if (settings.certFile && settings.keyFile) {
    const cert = readFile(settings.keys.certFile, settings.certFile);
    const key = readFile(settings.keys.keyFile, settings.keyFile);
    checkPair(settings, cert, key);
    pair = { cert, key };
  }
  const common: SecureContextOptions = {
    minVersion: nodeVersion(settings.minVersion),
    ...(settings.cipherSuites.length ? { ciphers: settings.cipherSuites.join(":") } : PREFERRED_CIPHERS),
    ...(ca.length ? { ca } : {}),
  };
  const server = pair ? { ...common, ...pair } : undefined;
  const client = pair || ca.length ? createSecureContext({ ...common, ...pair }) : undefined;
  return { settings, server, client, hasCa: ca.length > 0 };
}

/**
 * Without `tls_cipher_suites`: Node's defaults, but with TLS 1.3's AES-128-GCM first and the server's order
 * honoured, as Go's servers (Consul's) choose on hardware with AES instructions; it is the cheapest suite
 * per record, which is most of HTTPS's cost for small API answers.
 */
const PREFERRED_CIPHERS: SecureContextOptions = {
  ciphers: `TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:${DEFAULT_CIPHERS}`,
  honorCipherOrder: true,
};

function readFile(key: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ConfigError(`${key}: cannot read ${path}: ${(err as Error).message}`);
  }
}

function certificatesIn(key: string, path: string): string[] {
  const text = readFile(key, path).toString("utf8");
  const found = text.match(PEM_CERTIFICATE) ?? [];
  if (found.length === 0) throw new ConfigError(`${key}: ${path} holds no PEM certificate`);
  for (const pem of found) {
    try {
      new X509Certificate(pem);
    } catch (err) {
      throw new ConfigError(
        `${key}: ${path} holds a certificate that cannot be parsed: ${(err as Error).message}`,
      );
    }
  }
  return found;
}

/** Every file in `path` holding PEM certificates (as Consul's ca_path reads a directory of CA files). */
function certificatesInDirectory(key: string, path: string): string[] {
  let names: string[];
  try {
    names = readdirSync(path).sort();
  } catch (err) {
    throw new ConfigError(`${key}: cannot read directory ${path}: ${(err as Error).message}`);
  }
  const found: string[] = [];
  for (const name of names) {
    const file = join(path, name);
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) continue;
    const text = readFile(key, file).toString("utf8");
    if (PEM_CERTIFICATE.test(text)) found.push(...certificatesIn(key, file));
    PEM_CERTIFICATE.lastIndex = 0;
  }
  if (found.length === 0) throw new ConfigError(`${key}: ${path} holds no PEM certificate`);
  return found;
}

function checkPair(settings: TlsStanzaSettings, cert: Buffer, key: Buffer): void {
  const { keys, certFile, keyFile } = settings;
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (err) {
    throw new ConfigError(
      `${keys.certFile}: ${certFile} holds no usable certificate: ${(err as Error).message}`,
    );
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch (err) {
    throw new ConfigError(
      `${keys.keyFile}: ${keyFile} holds no usable private key: ${(err as Error).message}`,
    );
  }
  if (!certificate.checkPrivateKey(privateKey))
    throw new ConfigError(
      `${keys.keyFile}: the key in ${keyFile} does not match the certificate in ${certFile}`,
    );
}

function nodeVersion(version: TlsStanzaSettings["minVersion"]): SecureContextOptions["minVersion"] {
  return version.replace("_", ".") as SecureContextOptions["minVersion"];
}
