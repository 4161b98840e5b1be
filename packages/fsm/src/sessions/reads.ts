import { channelRead, inNamespace, type Read, type ViewScope } from "../store/read.js";
import type { Session } from "./records.js";
import { sessionsChannel } from "./tables.js";
import { sessionIdsOnNode } from "./writes.js";

export function sessionGet(v: ViewScope, id: string, ns?: string): Read<Session | undefined> {
  const s = v.t.sessions.get(id);
  return channelRead(
    v,
    s && inNamespace(ns, s.Namespace) ? s : undefined,
    v.t.indexes.sessions,
    sessionsChannel,
  );
}

export function sessionList(v: ViewScope, ns?: string): Read<Session[]> {
  const out: Session[] = [];
  v.t.sessions.forEach((s) => {
    if (inNamespace(ns, s.Namespace)) out.push(s);
  });
  return channelRead(v, out, v.t.indexes.sessions, sessionsChannel);
}

/** Sessions on a node, given by name or node ID. */
export function sessionsForNode(v: ViewScope, node: string, ns?: string): Read<Session[]> {
  const t = v.t;
  const name = t.nodes.has(node) ? node : (t.nodeIds.get(node) ?? node);
  const out = sessionIdsOnNode(t, name)
    .map((id) => t.sessions.get(id))
    .filter((s): s is Session => s !== undefined && inNamespace(ns, s.Namespace));
  return channelRead(v, out, t.indexes.sessions, sessionsChannel);
}
