# TLS for a Cairn client agent: drop next to client.hcl in /etc/cairn.d (files load in name order, so these
# settings win). Certificates from `cairn tls` (see OPERATIONS.md, "TLS"), installed in /etc/cairn/tls:
#   consul-agent-ca.pem             the CA every agent trusts (never its key)
#   dc1-client-consul-0.pem/-key    this agent's certificate, named client.dc1.consul

tls {
  defaults {
    ca_file   = "/etc/cairn/tls/consul-agent-ca.pem"
    cert_file = "/etc/cairn/tls/dc1-client-consul-0.pem"
    key_file  = "/etc/cairn/tls/dc1-client-consul-0-key.pem"

    # The servers require our certificate (their verify_incoming); we require theirs, and on HTTPS we
    # require one from every API client (the CLI's dc1-cli-consul-0.pem).
    verify_incoming = true
    verify_outgoing = true
  }

  internal_rpc {
    # Only a server certificate (server.dc1.consul) is accepted from the servers this agent tunnels to.
    verify_server_hostname = true
  }
}

ports {
  https = 8501
  http  = -1
}
