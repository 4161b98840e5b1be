import "reflect-metadata"; // @peculiar/x509's dependency injection needs the Reflect metadata API.
import { createHash, createPublicKey, X509Certificate as NodeX509, randomBytes } from "node:crypto";
import { AsnConvert } from "@peculiar/asn1-schema";
import {
  GeneralName,
  GeneralSubtree,
  GeneralSubtrees,
  id_ce_nameConstraints,
  NameConstraints,
} from "@peculiar/asn1-x509";
import * as x509 from "@peculiar/x509";
import {
  generateSigningKey,
  parseSigningKey,
  publicCryptoKey,
  type SigningKey,
  signingAlgorithm,
} from "./keys.js";
import {
  type CertIdentity,
  type CertKind,
  certIdentity,
  DEFAULT_CA_DAYS,
  DEFAULT_CERT_DAYS,
  DEFAULT_DOMAIN,
  type IdentityOptions,
} from "./names.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** A certificate and its private key, both PEM. */
export interface PemPair {
  cert: string;
  key: string;
}

/** Validity: `days` from now (Consul's way), or explicit dates (tests build expired or future certificates). */
export interface Validity {
  days?: number;
  notBefore?: Date;
  notAfter?: Date;
}

export interface CAOptions extends Validity {
  /** Domain permitted by name constraints (with localhost), when `nameConstraint` is set. */
  domain?: string;
  nameConstraint?: boolean;
  additionalNameConstraints?: readonly string[];
  commonName?: string;
}

export interface CertOptions extends Validity, IdentityOptions {
  kind: CertKind;
  /** The signing CA, PEM; the key must belong to the certificate. */
  ca: PemPair;
}

export interface GeneratedCert extends PemPair {
  identity: CertIdentity;
}

/** Creates a self-signed agent CA with a fresh ECDSA P-256 key, as `consul tls ca create` does. */
export async function generateCA(options: CAOptions = {}): Promise<PemPair> {
  const key = await generateSigningKey();
  const serial = serialNumber();
  const publicKey = await publicCryptoKey(key);
  const keyId = keyIdentifier(key);
  const { notBefore, notAfter } = validity(options, DEFAULT_CA_DAYS);
  const commonName = options.commonName || `Cairn Agent CA ${BigInt(`0x${serial}`).toString(10)}`;
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(true, undefined, true),
    new x509.KeyUsagesExtension(
      x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
      true,
    ),
    new x509.SubjectKeyIdentifierExtension(keyId),
    new x509.AuthorityKeyIdentifierExtension(keyId),
  ];
  if (options.nameConstraint) {
    const permitted = [
      ...(options.additionalNameConstraints ?? []),
      options.domain ?? DEFAULT_DOMAIN,
      "localhost",
    ];
    extensions.push(nameConstraints(permitted));
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial,
    subject: [{ O: ["Cairn"] }, { CN: [commonName] }],
    issuer: [{ O: ["Cairn"] }, { CN: [commonName] }],
    notBefore,
    notAfter,
    publicKey,
    signingKey: key.cryptoKey,
    signingAlgorithm: signingAlgorithm(key),
    extensions,
  });
  return { cert: cert.toString("pem"), key: key.pem };
}

/**
 * Creates a server, client or cli certificate with a fresh ECDSA P-256 key, signed by `ca`, with
 * the names Consul's `tls cert create` gives it. Checks the result chains to the CA before
 * returning it, as Consul does.
 */
export async function generateCert(options: CertOptions): Promise<GeneratedCert> {
  const identity = certIdentity(options.kind, options);
  const caCert = parseCertificate(options.ca.cert, "CA");
  if (!caCert.ca) throw new Error("the CA certificate is not a CA (basicConstraints CA:FALSE)");
  const caKey = await parseSigningKey(options.ca.key);
  if (!caCert.checkPrivateKey(caKey.keyObject))
    throw new Error("the CA key does not match the CA certificate");

  const key = await generateSigningKey();
  const { notBefore, notAfter } = validity(options, DEFAULT_CERT_DAYS);
  const names: x509.JsonGeneralName[] = [
    ...identity.dnsNames.map((value) => ({ type: "dns" as const, value })),
    ...identity.ipAddresses.map((value) => ({ type: "ip" as const, value })),
  ];
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(
      x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
      true,
    ),
    new x509.SubjectKeyIdentifierExtension(keyIdentifier(key)),
    new x509.AuthorityKeyIdentifierExtension(keyIdentifier(caKey)),
    new x509.SubjectAlternativeNameExtension(names, false),
  ];
  if (identity.extKeyUsage.length > 0)
    extensions.push(new x509.ExtendedKeyUsageExtension(identity.extKeyUsage, false));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: [{ CN: [identity.commonName] }],
    issuer: new x509.X509Certificate(caCert.raw).subjectName.toString(),
    notBefore,
    notAfter,
    publicKey: await publicCryptoKey(key),
    signingKey: caKey.cryptoKey,
    signingAlgorithm: signingAlgorithm(caKey),
    extensions,
  });
  const pem = cert.toString("pem");
  const issued = new NodeX509(pem);
  if (!issued.verify(caCert.publicKey) || !issued.checkIssued(caCert)) {
    throw new Error("the new certificate does not verify against the CA");
  }
  return { cert: pem, key: key.pem, identity };
}

/** Parses the first certificate of a PEM text; the error names what was being read. */
export function parseCertificate(pem: string, what = "certificate"): NodeX509 {
  try {
    return new NodeX509(pem);
  } catch {
    throw new Error(`${what}: no PEM-encoded certificate found`);
  }
}

function validity(options: Validity, defaultDays: number): { notBefore: Date; notAfter: Date } {
  const days = options.days ?? defaultDays;
  if (!Number.isInteger(days) || days <= 0)
    throw new Error(`days must be a positive whole number, got ${days}`);
  const notBefore = options.notBefore ?? new Date();
  const notAfter = options.notAfter ?? new Date(notBefore.getTime() + days * DAY_MS);
  if (notAfter.getTime() <= notBefore.getTime()) throw new Error("notAfter must be later than notBefore");
  return { notBefore, notAfter };
}

/** 127 random bits, hex: as unpredictable as Consul's 128-bit serials and always a positive INTEGER. */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return bytes.toString("hex");
}

/** SHA-256 of the DER public key, as Consul computes key identifiers. */
function keyIdentifier(key: SigningKey): string {
  const spki = createPublicKey(key.keyObject).export({ format: "der", type: "spki" });
  return createHash("sha256").update(spki).digest("hex");
}

function nameConstraints(domains: string[]): x509.Extension {
  const permitted = new GeneralSubtrees(
    domains.map((dNSName) => new GeneralSubtree({ base: new GeneralName({ dNSName }) })),
  );
  const value = AsnConvert.serialize(new NameConstraints({ permittedSubtrees: permitted }));
  // Critical, as Go marks PermittedDNSDomainsCritical: verifiers that cannot enforce it must refuse.
  return new x509.Extension(id_ce_nameConstraints, true, value);
}
