# Example Cairn server configuration (Consul's agent configuration syntax).
# One of three (or five) servers; copy to /etc/cairn.d/server.hcl and adjust node_name and retry_join.

datacenter       = "dc1"
node_name        = "cairn-server-1"
data_dir         = "/cairn/data"
server           = true
bootstrap_expect = 3

# Raft and gossip listen here; other servers reach this one at advertise_addr (default: the first private
# address when bound to 0.0.0.0).
bind_addr   = "0.0.0.0"
client_addr = "0.0.0.0"

# Every server lists the others (or all of them: joining yourself is harmless). Host names or addresses,
# with the LAN gossip port when it is not the default 8301.
retry_join = ["cairn-server-1", "cairn-server-2", "cairn-server-3"]

# 8300: server RPC and Raft (servers and client agents connect here); 8301: LAN gossip (every agent);
# 8302: WAN gossip (servers only, between datacenters; -1 turns it off).
ports {
  http     = 8500
  server   = 8300
  serf_lan = 8301
  serf_wan = 8302
}

# The same gossip key on every agent, servers and clients (`cairn keygen` makes one; see OPERATIONS.md).
# encrypt = "<base64 key>"

# 1 is Consul's production recommendation (election timeout about a second); raise it on slow or shared
# machines.
performance {
  raft_multiplier = 1
}

autopilot {
  cleanup_dead_servers      = true
  server_stabilization_time = "10s"
}

log_level = "INFO"
