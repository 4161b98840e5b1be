import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  webcrypto,
} from "node:crypto";

/** A private key usable both by node:crypto and by WebCrypto (which @peculiar/x509 signs with). */
export interface SigningKey {
  /** PEM as written to disk: SEC1 `EC PRIVATE KEY` for the keys we generate, like Consul. */
  pem: string;
  keyObject: KeyObject;
  cryptoKey: webcrypto.CryptoKey;
  algorithm: webcrypto.EcKeyImportParams | webcrypto.RsaHashedImportParams;
}

const CURVES: Record<string, string> = { prime256v1: "P-256", secp384r1: "P-384", secp521r1: "P-521" };

/** ECDSA P-256, the key type Consul's `tls` commands generate. */
export async function generateSigningKey(): Promise<SigningKey> {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const pem = privateKey.export({ format: "pem", type: "sec1" }).toString();
  return toSigningKey(privateKey, pem);
}

/**
 * Reads a PEM private key (SEC1, PKCS#8 or PKCS#1); throws with a one-line reason for anything
 * that is not an EC or RSA private key.
 */
export async function parseSigningKey(pem: string): Promise<SigningKey> {
  let keyObject: KeyObject;
  try {
    keyObject = createPrivateKey(pem);
  } catch {
    throw new Error("no PEM-encoded private key found");
  }
  return toSigningKey(keyObject, pem);
}

async function toSigningKey(keyObject: KeyObject, pem: string): Promise<SigningKey> {
  const algorithm = importAlgorithm(keyObject);
  const pkcs8 = keyObject.export({ format: "der", type: "pkcs8" });
  const cryptoKey = await webcrypto.subtle.importKey("pkcs8", pkcs8, algorithm, true, ["sign"]);
  return { pem, keyObject, cryptoKey, algorithm };
}

function importAlgorithm(key: KeyObject): SigningKey["algorithm"] {
  if (key.asymmetricKeyType === "ec") {
    const curve = CURVES[key.asymmetricKeyDetails?.namedCurve ?? ""];
    if (!curve)
      throw new Error(`unsupported EC curve ${key.asymmetricKeyDetails?.namedCurve ?? "(unknown)"}`);
    return { name: "ECDSA", namedCurve: curve };
  }
  if (key.asymmetricKeyType === "rsa") return { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
  throw new Error(`unsupported key type ${key.asymmetricKeyType ?? "(unknown)"}`);
}

/** The WebCrypto public key matching a signing key (for the certificate's subjectPublicKeyInfo). */
export async function publicCryptoKey(key: SigningKey): Promise<webcrypto.CryptoKey> {
  const spki = createPublicKey(key.keyObject).export({ format: "der", type: "spki" });
  return webcrypto.subtle.importKey("spki", spki, key.algorithm, true, ["verify"]);
}

/** The signature algorithm for certificates signed by this key: SHA-256 like Go's default for P-256 and RSA. */
export function signingAlgorithm(key: SigningKey): webcrypto.EcdsaParams | webcrypto.Algorithm {
  if (key.algorithm.name === "ECDSA") {
    const curve = (key.algorithm as webcrypto.EcKeyImportParams).namedCurve;
    return { name: "ECDSA", hash: curve === "P-384" ? "SHA-384" : curve === "P-521" ? "SHA-512" : "SHA-256" };
  }
  return { name: "RSASSA-PKCS1-v1_5" };
}
