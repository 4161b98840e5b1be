// The TLS side of the CLI's HTTP client: CA, client certificate and verification read and checked once,
// before any request, so a wrong file fails naming the file instead of as a handshake error.
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { readConfigFile } from "./config-file.js";
import type { TlsConfig } from "./http.js";

export interface TlsSources {
  caFile: string;
  caPath: string;
  certFile: string;
  keyFile: string;
  servername: string | undefined;
  verify: boolean;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

export function resolveTls(sources: TlsSources): TlsConfig {
  const { caFile, caPath, certFile, keyFile } = sources;
  // As consul's client: a CA file wins over a CA directory.
  const ca =
    caFile !== "" ? caFromFile("ca-file", caFile) : caPath !== "" ? caFromDirectory(caPath) : undefined;
  if ((certFile === "") !== (keyFile === "")) {
    throw new Error("Error loading client certificate: -client-cert and -client-key must be given together");
  }
  let cert: Buffer | undefined;
  let key: Buffer | undefined;
  if (certFile !== "") {
    const certPem = readConfigFile("client-cert", certFile);
    const keyPem = readConfigFile("client-key", keyFile);
    checkKeyPair(certPem, certFile, keyPem, keyFile);
    cert = Buffer.from(certPem);
    key = Buffer.from(keyPem);
  }
  return { ca, cert, key, servername: sources.servername, rejectUnauthorized: sources.verify };
}

function certificates(pem: string): string[] {
  return [...pem.matchAll(PEM_CERTIFICATE)].map((m) => m[0]).filter((block) => parses(block));
}

function parses(block: string): boolean {
  try {
    new X509Certificate(block);
    return true;
  } catch {
    return false;
  }
}

function caFromFile(what: string, path: string): Buffer {
  const found = certificates(readConfigFile(what, path));
  if (found.length === 0) throw new Error(`Error loading ${what}: couldn't parse PEM in: ${path}`);
  return Buffer.from(found.join("\n"));
}

/** Every file under the directory (recursively, as consul's go-rootcerts walks it) must hold certificates. */
function caFromDirectory(dir: string): Buffer {
  const found: string[] = [];
  const walk = (path: string) => {
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch (err) {
      throw new Error(`Error loading ca-path: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!isDir) {
      const inFile = certificates(readConfigFile("ca-path", path));
      if (inFile.length === 0) throw new Error(`Error loading ca-path: couldn't parse PEM in: ${path}`);
      found.push(...inFile);
      return;
    }
    for (const entry of readdirSync(path).sort()) walk(join(path, entry));
  };
  walk(dir);
  if (found.length === 0) throw new Error(`Error loading ca-path: no certificates in ${dir}`);
  return Buffer.from(found.join("\n"));
}

function checkKeyPair(certPem: string, certFile: string, keyPem: string, keyFile: string): void {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch {
    throw new Error(`Error loading client-cert: no certificate found in ${certFile}`);
  }
  let matches: boolean;
  try {
    matches = cert.checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    throw new Error(`Error loading client-key: no private key found in ${keyFile}`);
  }
  if (!matches) {
    throw new Error(
      `Error loading client certificate: the key in ${keyFile} does not match the certificate in ${certFile}`,
    );
  }
}
