import type { PreparedQuery } from "@cairn/fsm";

/**
 * A prepared query as Consul's JSON shows it. Go flattens the embedded RaftIndex into CreateIndex and
 * ModifyIndex, while the API documentation (and spec 3) shows a RaftIndex object: both are written, so
 * either reader finds them.
 */
export function preparedQueryJson(q: PreparedQuery): Record<string, unknown> {
  return {
    ID: q.ID,
    Name: q.Name,
    Session: q.Session,
    Token: q.Token,
    Template: q.Template,
    Service: q.Service,
    DNS: q.DNS,
    CreateIndex: q.CreateIndex,
    ModifyIndex: q.ModifyIndex,
    RaftIndex: { CreateIndex: q.CreateIndex, ModifyIndex: q.ModifyIndex },
  };
}
