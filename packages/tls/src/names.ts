import { isIP } from "node:net";

export type CertKind = "server" | "client" | "cli";

export const DEFAULT_DOMAIN = "consul";
export const DEFAULT_DATACENTER = "dc1";
/** Consul's defaults: a CA for about five years, agent certificates for one. */
export const DEFAULT_CA_DAYS = 1825;
export const DEFAULT_CERT_DAYS = 365;

const SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
const CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

export interface CertIdentity {
  commonName: string;
  dnsNames: string[];
  ipAddresses: string[];
  /** Extended key usage OIDs; empty means none (Consul's cli certificates carry no EKU). */
  extKeyUsage: string[];
}

export interface IdentityOptions {
  datacenter?: string;
  domain?: string;
  /** Server certificates only: adds `<node>.server.<dc>.<domain>`. */
  node?: string;
  additionalDnsNames?: readonly string[];
  additionalIpAddresses?: readonly string[];
}

/**
 * The names Consul's `tls cert create` puts in each kind of certificate: servers answer as
 * `server.<dc>.<domain>` (what verify_server_hostname checks), so a client certificate, named
 * `client.<dc>.<domain>`, can never pose as a server.
 */
export function certIdentity(kind: CertKind, options: IdentityOptions = {}): CertIdentity {
  const dc = options.datacenter ?? DEFAULT_DATACENTER;
  const domain = options.domain ?? DEFAULT_DOMAIN;
  const extraDns = (options.additionalDnsNames ?? []).map((d) => d.trim()).filter((d) => d.length > 0);
  const extraIps = (options.additionalIpAddresses ?? []).map((ip) => ip.trim()).filter((ip) => ip.length > 0);
  for (const ip of extraIps) {
    if (isIP(ip) === 0) throw new Error(`invalid IP address ${JSON.stringify(ip)}`);
  }
  if (options.node && kind !== "server") throw new Error("-node requires -server");
  const commonName = `${kind}.${dc}.${domain}`;
  switch (kind) {
    case "server": {
      const nodeName = options.node ? [`${options.node}.server.${dc}.${domain}`] : [];
      return {
        commonName,
        dnsNames: [...extraDns, ...nodeName, commonName, "localhost"],
        ipAddresses: [...extraIps, "127.0.0.1"],
        extKeyUsage: [SERVER_AUTH, CLIENT_AUTH],
      };
    }
    case "client":
      return {
        commonName,
        dnsNames: [...extraDns, commonName, "localhost"],
        ipAddresses: [...extraIps, "127.0.0.1"],
        extKeyUsage: [CLIENT_AUTH, SERVER_AUTH],
      };
    case "cli":
      // Consul ignores additional names for cli certificates; so do we.
      return { commonName, dnsNames: [commonName, "localhost"], ipAddresses: [], extKeyUsage: [] };
  }
}

/** `consul-agent-ca.pem` and `consul-agent-ca-key.pem` for the default domain. */
export function caFileNames(domain: string = DEFAULT_DOMAIN): { cert: string; key: string } {
  return { cert: `${domain}-agent-ca.pem`, key: `${domain}-agent-ca-key.pem` };
}

/** `dc1-server-consul-<index>.pem` and `dc1-server-consul-<index>-key.pem`. */
export function certFileNames(
  kind: CertKind,
  index: number,
  datacenter: string = DEFAULT_DATACENTER,
  domain: string = DEFAULT_DOMAIN,
): { cert: string; key: string } {
  const prefix = `${datacenter}-${kind}-${domain}-${index}`;
  return { cert: `${prefix}.pem`, key: `${prefix}-key.pem` };
}
