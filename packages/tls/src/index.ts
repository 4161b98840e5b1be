export {
  type CAOptions,
  type CertOptions,
  type GeneratedCert,
  generateCA,
  generateCert,
  type PemPair,
  parseCertificate,
  type Validity,
} from "./generate.js";
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
