import type { ConnectionOptions, PeerCertificate, SecureContext, SecureContextOptions } from "node:tls";
import type { ClientOptions } from "ws";

/**
 * TLS on the server RPC port, decided by the embedding agent. Each function is asked again for every
 * connection, so new certificates (a reload) apply to new connections while open ones keep theirs.
 */
export interface TransportTls {
  /** The accepting side; undefined: plaintext only. */
  incoming(): IncomingTls | undefined;
  /** The dialing side (peer links, and anyone using `dialTarget`); undefined: dial plaintext. */
  outgoing(): OutgoingTls | undefined;
  /**
   * Checks a verified peer that dials the Raft path: returns why it may not act as a server, or undefined.
   * Asked only for TLS connections whose client certificate was verified.
   */
  authorizeServer?(peer: PeerCertificate): string | undefined;
  /** How long an accepted connection may take to finish its TLS handshake (default 10 s). */
  handshakeTimeoutMs?: number;
}

export interface IncomingTls {
  /** This server's certificate, key, CA, versions and ciphers. */
  options: SecureContextOptions;
  /** Refuse connections without a client certificate signed by the CA, and plaintext ones. */
  verifyClients: boolean;
}

export interface OutgoingTls {
  context: SecureContext;
  /** Check the server's certificate against the CA. */
  verify: boolean;
  /** With `verify`: the DNS name the server's certificate must hold (server.<dc>.<domain>); else any. */
  serverName?: string;
}

/**
 * A zero masking key. RFC 6455 makes clients mask so that a browser script cannot choose the bytes a
 * transparent proxy sees; these dialers are our own processes, not browsers. With a zero key ws neither
 * XORs nor copies a frame to mask it, and the receiving side skips unmasking (a leader's appends were
 * masked at ~1% of its write CPU).
 */
function unmasked(mask: Buffer): void {
  mask.fill(0);
}

/** The websocket URL and options to dial `address` at `path`, over TLS when `tls` says so. */
export function dialTarget(
  address: string,
  path: string,
  tls: OutgoingTls | undefined,
): { url: string; options: ClientOptions } {
  if (!tls) return { url: `ws://${address}${path}`, options: { generateMask: unmasked } };
  const { serverName } = tls;
  const options: ConnectionOptions = {
    secureContext: tls.context,
    rejectUnauthorized: tls.verify,
    servername: serverName ?? "",
    // Servers are dialed by address; only the CA signature is checked unless a server name is required.
    checkServerIdentity: (_host, cert) =>
      serverName === undefined ? undefined : certificateNameError(cert, serverName),
  };
  // ws hands these to tls.connect; its typings describe checkServerIdentity differently.
  return {
    url: `wss://${address}${path}`,
    options: { ...(options as ClientOptions), generateMask: unmasked },
  };
}

/** Why `cert` does not hold `name` as a DNS subject alternative name, or undefined if it does. */
export function certificateNameError(cert: PeerCertificate, name: string): Error | undefined {
  const names = (cert.subjectaltname ?? "")
    .split(/,\s*/)
    .filter((entry) => entry.startsWith("DNS:"))
    .map((entry) => entry.slice(4).toLowerCase());
  if (names.includes(name.toLowerCase())) return undefined;
  return new Error(
    `certificate is not valid for ${name} (it names ${names.length ? names.join(", ") : "no DNS names"})`,
  );
}
