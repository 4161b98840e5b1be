# Example Cairn client agent configuration (Consul's agent configuration syntax). A client agent keeps no
# Raft state: it joins the LAN gossip pool, runs the services and checks registered with it, and forwards
# every other API request to a live server over the server RPC port (8300). Copy to /etc/cairn.d/client.hcl
# on each application host and adjust node_name and retry_join.

datacenter = "dc1"
node_name  = "cairn-client-1"
# Clients need a data directory too (node identity, local services and checks).
data_dir   = "/cairn/data"
# No `server = true`: this is a client.
server     = false

bind_addr   = "0.0.0.0"
client_addr = "0.0.0.0"

# Any server (or another client) will do: the rest of the pool is learned through gossip. Host names or
# addresses, with the LAN gossip port when it is not the default 8301.
retry_join = ["cairn-server-1", "cairn-server-2", "cairn-server-3"]

ports {
  http     = 8500
  serf_lan = 8301
}

# A client leaves the pool when stopped (SIGTERM), so the catalog drops its node at once instead of marking
# it failed. This is the default for clients; written out because servers default the other way.
leave_on_terminate = true

# The same gossip key on every agent, servers and clients (`cairn keygen` makes one; see OPERATIONS.md).
# encrypt = "<base64 key>"

log_level = "INFO"
