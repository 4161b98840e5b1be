# Example Cairn client agent configuration. Client mode (no Raft, requests forwarded to the servers) arrives
# with gossip: until then `cairn agent` refuses to start without -server, but this file already loads.

datacenter  = "dc1"
node_name   = "cairn-client-1"
data_dir    = "/cairn/data"
server      = false
bind_addr   = "0.0.0.0"
client_addr = "0.0.0.0"
retry_join  = ["cairn-server-1", "cairn-server-2", "cairn-server-3"]

ports {
  http = 8500
}

log_level = "INFO"
