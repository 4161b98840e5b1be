import { UserEventError } from "@cairn/api";

/** An event's three filters as compiled regular expressions; absent filters match everything. */
export interface CompiledFilters {
  node: RegExp | undefined;
  service: RegExp | undefined;
  tag: RegExp | undefined;
}

export interface LocalService {
  /** The instance ID; Consul matches the service filter against it (it defaults to the service name). */
  ID?: string;
  Service: string;
  Tags: readonly string[];
}

/**
 * Checks a fire request's filters as Consul's agent does before sending: each must compile, and a tag
 * filter needs a service filter (tags are looked up on matching services). Throws UserEventError.
 */
export function compileFilters(node: string, service: string, tag: string): CompiledFilters {
  if (tag !== "" && service === "")
    throw new UserEventError("Cannot provide tag filter without service filter");
  return {
    node: compile(node, "node"),
    service: compile(service, "service"),
    tag: compile(tag, "tag"),
  };
}

function compile(source: string, what: string): RegExp | undefined {
  if (source === "") return undefined;
  try {
    return new RegExp(source);
  } catch (err) {
    throw new UserEventError(`Invalid ${what} filter: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Does this agent take the event? Its node name must match the node filter (an unanchored search, as Go's
 * MatchString), and with a service filter one of its local service instances (by ID, as Consul keys
 * them) must match, and with a tag filter also carry a matching tag.
 */
export function agentMatches(
  filters: CompiledFilters,
  nodeName: string,
  localServices: () => readonly LocalService[],
): boolean {
  if (filters.node !== undefined && !filters.node.test(nodeName)) return false;
  const service = filters.service;
  if (service === undefined) return true;
  const tag = filters.tag;
  return localServices().some(
    (s) => service.test(s.ID ?? s.Service) && (tag === undefined || s.Tags.some((t) => tag.test(t))),
  );
}
