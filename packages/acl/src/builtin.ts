/** The built-in policy every bootstrap and initial-management token links to. */
export const GLOBAL_MANAGEMENT_POLICY_ID = "00000000-0000-0000-0000-000000000001";
export const GLOBAL_MANAGEMENT_POLICY_NAME = "global-management";
export const GLOBAL_MANAGEMENT_POLICY_DESCRIPTION = "Builtin Policy that grants unlimited access";

/**
 * Write on everything, ACLs and operator included, in every namespace (Consul Enterprise adds the
 * namespace_prefix block; Cairn has namespaces as an ordinary feature).
 */
export const GLOBAL_MANAGEMENT_RULES = `
acl = "write"
agent_prefix "" {
  policy = "write"
}
event_prefix "" {
  policy = "write"
}
key_prefix "" {
  policy = "write"
}
keyring = "write"
node_prefix "" {
  policy = "write"
}
operator = "write"
mesh = "write"
peering = "write"
query_prefix "" {
  policy = "write"
}
service_prefix "" {
  policy = "write"
  intentions = "write"
}
session_prefix "" {
  policy = "write"
}
namespace_prefix "" {
  policy = "write"
  acl = "write"
  key_prefix "" {
    policy = "write"
  }
  service_prefix "" {
    policy = "write"
    intentions = "write"
  }
  session_prefix "" {
    policy = "write"
  }
}
`;
