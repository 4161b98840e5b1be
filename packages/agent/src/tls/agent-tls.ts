import type { PeerCertificate } from "node:tls";
import { certificateNameError, type OutgoingTls, type TransportTls } from "@cairn/raft";
import type { AgentConfig, TlsSettings } from "../config/index.js";
import { loadStanza, type StanzaMaterial } from "./material.js";

/**
 * The agent's TLS state: certificates for the server RPC port and the HTTPS API, read at start and again on
 * reload. Listeners and dialers ask for the current material per connection, so a reload applies to new
 * connections while open ones keep the certificates they started with.
 */
export class AgentTls {
  private rpc: StanzaMaterial<TlsSettings["internalRpc"]>;
  private https: StanzaMaterial;
  private rpcOutgoing: OutgoingTls | undefined;
  private readonly serverName: string;
  private readonly domain: string;
  private readonly httpsListeners = new Set<(material: StanzaMaterial) => void>();

  /** Throws ConfigError (naming the key and file) when a file is unreadable or a key does not match. */
  constructor(config: Pick<AgentConfig, "tls" | "datacenter" | "domain">) {
    this.domain = config.domain.replace(/\.$/, "");
    this.serverName = `server.${config.datacenter}.${this.domain}`;
    this.rpc = loadStanza(config.tls.internalRpc);
    this.https = loadStanza(config.tls.https);
    this.rpcOutgoing = this.outgoingFor(this.rpc);
  }

  /** Reads the files again; on any error the current certificates stay and the error is thrown. */
  reload(tls: TlsSettings): void {
    const rpc = loadStanza(tls.internalRpc);
    const https = loadStanza(tls.https);
    this.rpc = rpc;
    this.https = https;
    this.rpcOutgoing = this.outgoingFor(rpc);
    for (const listener of this.httpsListeners) listener(https);
  }

  get httpsMaterial(): StanzaMaterial {
    return this.https;
  }

  onHttpsReload(listener: (material: StanzaMaterial) => void): () => void {
    this.httpsListeners.add(listener);
    return () => this.httpsListeners.delete(listener);
  }

  /** Whether this agent dials servers over TLS (verify_outgoing). */
  get rpcDialsTls(): boolean {
    return this.rpcOutgoing !== undefined;
  }

  /** How a server's RPC port accepts and dials (Raft, snapshots, the client tunnel). */
  transportTls(): TransportTls {
    return {
      incoming: () => {
        const { server, settings } = this.rpc;
        return server ? { options: server, verifyClients: settings.verifyIncoming } : undefined;
      },
      outgoing: () => this.rpcOutgoing,
      authorizeServer: (peer) => this.serverCertificateProblem(peer),
    };
  }

  /** The dialing side alone, for client agents' tunnels to servers. */
  outgoing(): OutgoingTls | undefined {
    return this.rpcOutgoing;
  }

  /**
   * Dialing a server of another datacenter (`?dc=` forwarding): the same certificates, but with
   * verify_server_hostname the remote server must hold server.<that dc>.<domain>.
   */
  outgoingTo(datacenter: string): OutgoingTls | undefined {
    const out = this.rpcOutgoing;
    if (out?.serverName === undefined) return out;
    return { ...out, serverName: `server.${datacenter}.${this.domain}` };
  }

  /**
   * With verify_server_hostname only a certificate for server.<dc>.<domain> may speak Raft; a client agent's
   * certificate, though signed by the same CA, is refused.
   */
  private serverCertificateProblem(peer: PeerCertificate): string | undefined {
    const { verifyIncoming, verifyServerHostname } = this.rpc.settings;
    if (!verifyIncoming || !verifyServerHostname) return undefined;
    const problem = certificateNameError(peer, this.serverName);
    return problem && `not a server certificate: ${problem.message}`;
  }

  private outgoingFor(material: StanzaMaterial<TlsSettings["internalRpc"]>): OutgoingTls | undefined {
    const { settings, client } = material;
    if (!settings.verifyOutgoing || !client) return undefined;
    const serverName = settings.verifyServerHostname ? { serverName: this.serverName } : {};
    return { context: client, verify: true, ...serverName };
  }
}
