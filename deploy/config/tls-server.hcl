# TLS for a Cairn server: drop next to server.hcl in /etc/cairn.d (files load in name order, so these
# settings win). Certificates from `cairn tls` (see OPERATIONS.md, "TLS"), installed in /etc/cairn/tls:
#   consul-agent-ca.pem             the CA every agent trusts (never its key)
#   dc1-server-consul-0.pem/-key    this server's certificate, named server.dc1.consul
# Consul's 1.12+ `tls` block: the same keys as Consul, so an existing Consul config carries over.

tls {
  defaults {
    ca_file   = "/etc/cairn/tls/consul-agent-ca.pem"
    cert_file = "/etc/cairn/tls/dc1-server-consul-0.pem"
    key_file  = "/etc/cairn/tls/dc1-server-consul-0-key.pem"

    # Refuse peers (servers, client agents, HTTPS clients) without a certificate from this CA, and present
    # ours when connecting to other servers.
    verify_incoming = true
    verify_outgoing = true
  }

  internal_rpc {
    # Other servers must present a certificate for server.<datacenter>.<domain>: a client agent's
    # certificate (client.dc1.consul) cannot pose as a server.
    verify_server_hostname = true
  }
}

# HTTPS only: the API on 8501, plain HTTP off.
ports {
  https = 8501
  http  = -1
}
