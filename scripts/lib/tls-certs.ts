// Certificates for TLS tests, made with Cairn's own generator: an agent CA, server and client certificates
// for dc1, and the bad ones a server must refuse (another CA's, an expired one).

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateCA, generateCert, type PemPair } from "@cairn/tls";

export interface TestCertFiles {
  readonly ca: string;
  readonly server: { readonly cert: string; readonly key: string };
  readonly client: { readonly cert: string; readonly key: string };
  /** A server certificate signed by an unrelated CA. */
  readonly otherCaServer: { readonly cert: string; readonly key: string };
  /** A server certificate of the right CA whose validity ended yesterday. */
  readonly expiredServer: { readonly cert: string; readonly key: string };
  /** The CA itself, to sign more certificates (rotation). */
  readonly caPair: PemPair;
}

/** Writes the certificates into `dir` and returns their paths. */
export async function writeTestCerts(dir: string, datacenter = "dc1"): Promise<TestCertFiles> {
  const ca = await generateCA();
  const other = await generateCA();
  const write = (name: string, pair: PemPair) => {
    const cert = join(dir, `${name}.pem`);
    const key = join(dir, `${name}-key.pem`);
    writeFileSync(cert, pair.cert);
    writeFileSync(key, pair.key, { mode: 0o600 });
    return { cert, key };
  };
  const caFile = join(dir, "consul-agent-ca.pem");
  writeFileSync(caFile, ca.cert);
  const day = 24 * 3600_000;
  return {
    ca: caFile,
    caPair: ca,
    server: write("server", await generateCert({ kind: "server", ca, datacenter })),
    client: write("client", await generateCert({ kind: "client", ca, datacenter })),
    otherCaServer: write("other-ca-server", await generateCert({ kind: "server", ca: other, datacenter })),
    expiredServer: write(
      "expired-server",
      await generateCert({
        kind: "server",
        ca,
        datacenter,
        notBefore: new Date(Date.now() - 10 * day),
        notAfter: new Date(Date.now() - day),
      }),
    ),
  };
}

/** The `tls` block of an agent using `pair`, verifying in both directions and server names. */
export function tlsHcl(ca: string, pair: { cert: string; key: string }, extra = ""): string {
  return `tls {
  defaults {
    ca_file = ${JSON.stringify(ca)}
    cert_file = ${JSON.stringify(pair.cert)}
    key_file = ${JSON.stringify(pair.key)}
    verify_incoming = true
    verify_outgoing = true
  }
  internal_rpc { verify_server_hostname = true }
  ${extra}
}`;
}
