import { createPrivateKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { exportJWK, SignJWT } from "jose";

/** Real loopback servers and keys for login tests: a JWKS endpoint and a fake Kubernetes API over TLS. */

// --- a self-signed CA certificate for 127.0.0.1, built with node:crypto (DER by hand) ---

function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const len =
    n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, content]);
}
const seq = (...parts: Buffer[]) => der(0x30, Buffer.concat(parts));
function oid(text: string): Buffer {
  const [a, b, ...rest] = text.split(".").map(Number) as [number, number, ...number[]];
  const bytes = [40 * a + b];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}
const utcTime = (d: Date) => der(0x17, Buffer.from(`${d.toISOString().slice(2, 19).replace(/[-:T]/g, "")}Z`));
const name = (cn: string) => seq(der(0x31, seq(oid("2.5.4.3"), der(0x0c, Buffer.from(cn)))));

export interface TestCert {
  readonly certPem: string;
  readonly keyPem: string;
}

export function selfSignedCert(): TestCert {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const sigAlg = seq(oid("1.2.840.10045.4.3.2"));
  const now = Date.now();
  const san = seq(oid("2.5.29.17"), der(0x04, seq(der(0x87, Buffer.from([127, 0, 0, 1])))));
  const basic = seq(
    oid("2.5.29.19"),
    der(0x01, Buffer.from([0xff])),
    der(0x04, seq(der(0x01, Buffer.from([0xff])))),
  );
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, Buffer.from([0x01, 0x23, 0x45])),
    sigAlg,
    name("cairn-test-ca"),
    seq(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    name("cairn-test-ca"),
    publicKey.export({ type: "spki", format: "der" }),
    der(0xa3, seq(san, basic)),
  );
  const signature = sign("sha256", tbs, privateKey);
  const cert = seq(tbs, sigAlg, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const b64 = cert.toString("base64").replace(/.{64}/g, "$&\n");
  return {
    certPem: `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`,
    keyPem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

// --- loopback servers ---

export interface TestServer {
  readonly url: string;
  readonly requests: Array<{ method: string; path: string; auth: string; body: unknown }>;
  close(): Promise<void>;
}

type Handler = (req: { method: string; path: string; auth: string; body: unknown }) => {
  status: number;
  body: unknown;
};

async function listen(
  create: (fn: (req: IncomingMessage, res: ServerResponse) => void) => ReturnType<typeof createHttpServer>,
  scheme: string,
  handler: Handler,
): Promise<TestServer> {
  const requests: TestServer["requests"] = [];
  const server = create((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const seen = {
        method: req.method ?? "",
        path: req.url ?? "",
        auth: req.headers.authorization ?? "",
        body: text === "" ? undefined : (JSON.parse(text) as unknown),
      };
      requests.push(seen);
      const out = handler(seen);
      res.writeHead(out.status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(out.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const startHttp = (handler: Handler) => listen((fn) => createHttpServer(fn), "http", handler);

export const startHttps = (cert: TestCert, handler: Handler) =>
  listen((fn) => createHttpsServer({ cert: cert.certPem, key: cert.keyPem }, fn), "https", handler);

// --- JWT signing ---

export interface Signer {
  readonly publicPem: string;
  readonly privateKey: KeyObject;
  jwks(kid: string): Promise<{ keys: unknown[] }>;
  sign(claims: Record<string, unknown>, kid?: string): Promise<string>;
}

export function rsaSigner(): Signer {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    publicPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    privateKey: createPrivateKey(privateKey.export({ type: "pkcs8", format: "pem" })),
    async jwks(kid) {
      return { keys: [{ ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" }] };
    },
    sign(claims, kid) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", ...(kid ? { kid } : {}) })
        .sign(privateKey);
    },
  };
}

/** A JWT-shaped string (Kubernetes tokens are opaque to us: only TokenReview judges them). */
export function fakeJwt(subject: string): string {
  const part = (x: unknown) => Buffer.from(JSON.stringify(x)).toString("base64url");
  return `${part({ alg: "RS256", typ: "JWT" })}.${part({ sub: subject })}.c2ln`;
}
