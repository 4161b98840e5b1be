import type { CAOptions, CertOptions, GeneratedCert, PemPair } from "./generate.js";

export type { CAOptions, CertOptions, GeneratedCert, PemPair, Validity } from "./generate.js";
export { generateSigningKey, parseSigningKey, type SigningKey } from "./keys.js";
export {
  type CertIdentity,
  type CertKind,
  caFileNames,
  certFileNames,
  certIdentity,
  DEFAULT_CA_DAYS,
  DEFAULT_CERT_DAYS,
  DEFAULT_DATACENTER,
  DEFAULT_DOMAIN,
  type IdentityOptions,
} from "./names.js";

// The X.509 library takes about a second to load: only the commands that issue certificates pay for it, not
// every `cairn` command that imports this package for its names.
const generator = () => import("./generate.js");

/** Creates a self-signed agent CA with a fresh ECDSA P-256 key, as `consul tls ca create` does. */
export async function generateCA(options: CAOptions = {}): Promise<PemPair> {
  return (await generator()).generateCA(options);
}

/** Creates a server, client or cli certificate signed by `options.ca`, named as Consul names it. */
export async function generateCert(options: CertOptions): Promise<GeneratedCert> {
  return (await generator()).generateCert(options);
}
