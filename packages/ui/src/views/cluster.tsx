import { useState } from "preact/hooks";
import { useBlocking, useFetch } from "../api/hooks";
import { href, v1 } from "../api/paths";
import { ErrorBanner } from "../components/error-banner";
import { HealthBadge } from "../components/health";
import { Loading } from "../components/list";

interface RaftServer {
  ID: string;
  Node: string;
  Address: string;
  Leader: boolean;
  Voter: boolean;
  LastIndex?: number;
}

interface AutopilotServer {
  ID: string;
  Name: string;
  Healthy: boolean;
  LastContact?: string;
  LastIndex?: number;
  Leader?: boolean;
}

interface AutopilotHealth {
  Healthy: boolean;
  FailureTolerance: number;
  Servers: AutopilotServer[];
}

interface Member {
  Name: string;
  Addr: string;
  Port: number;
  Status: number;
  Tags: Record<string, string>;
}

// Serf's member states, as /v1/agent/members numbers them.
const MEMBER_STATUS = ["none", "alive", "leaving", "left", "failed"];

/**
 * Servers (Raft configuration and autopilot health) and gossip members. Those endpoints do not block, so they
 * are read again whenever the datacenter's health changes (a failed or departed server changes its serfHealth
 * check, written by the new leader) — or on request.
 */
export default function Cluster() {
  const trigger = useBlocking<unknown>(v1("health/state/any"), { filter: 'CheckID == "serfHealth"' });
  const [manual, setManual] = useState(0);
  const refresh = `${trigger.index ?? ""}/${manual}`;
  const raft = useFetch<{ Servers: RaftServer[]; Index: number }>(
    v1("operator/raft/configuration"),
    {},
    refresh,
  );
  const autopilot = useFetch<AutopilotHealth>(v1("operator/autopilot/health"), {}, refresh);
  const members = useFetch<Member[]>(v1("agent/members"), {}, refresh);
  const health = new Map((autopilot.data?.Servers ?? []).map((s) => [s.ID, s]));
  return (
    <section>
      <h1>Cluster</h1>
      <div class="toolbar">
        <button type="button" onClick={() => setManual((m) => m + 1)}>
          Refresh
        </button>
      </div>
      <h2>Servers</h2>
      <ErrorBanner error={raft.error} needs="operator:read" />
      {autopilot.data ? (
        <p>
          Autopilot: <HealthBadge status={autopilot.data.Healthy ? "passing" : "critical"} /> failure
          tolerance {autopilot.data.FailureTolerance}
        </p>
      ) : (
        <ErrorBanner error={autopilot.error} needs="operator:read" />
      )}
      {raft.data === undefined ? (
        raft.error ? null : (
          <Loading what="servers" />
        )
      ) : (
        <div class="table-wrap">
          <table aria-label="Servers">
            <thead>
              <tr>
                <th scope="col">Node</th>
                <th scope="col">Address</th>
                <th scope="col">Role</th>
                <th scope="col">Last index</th>
                <th scope="col">Health</th>
              </tr>
            </thead>
            <tbody>
              {raft.data.Servers.map((s) => {
                const h = health.get(s.ID);
                return (
                  <tr key={s.ID} data-leader={s.Leader ? "true" : undefined}>
                    <td>
                      <a href={href("nodes", s.Node)}>{s.Node}</a>
                    </td>
                    <td>{s.Address}</td>
                    <td>
                      {s.Leader ? <strong>Leader</strong> : "Follower"}
                      {s.Voter ? " · voter" : " · non-voter"}
                    </td>
                    <td>{s.LastIndex ?? h?.LastIndex ?? ""}</td>
                    <td>
                      {h ? (
                        <>
                          <HealthBadge status={h.Healthy ? "passing" : "critical"} />{" "}
                          {h.LastContact ? <span class="meta">last contact {h.LastContact}</span> : null}
                        </>
                      ) : (
                        ""
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <h2>Gossip members</h2>
      <ErrorBanner error={members.error} needs="node:read" />
      {members.data === undefined ? (
        members.error ? null : (
          <Loading what="members" />
        )
      ) : (
        <div class="table-wrap">
          <table aria-label="Gossip members">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Address</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {members.data.map((m) => {
                const status = MEMBER_STATUS[m.Status] ?? String(m.Status);
                return (
                  <tr key={m.Name}>
                    <td>{m.Name}</td>
                    <td>
                      {m.Addr}:{m.Port}
                    </td>
                    <td>{m.Tags.role === "consul" ? "server" : "client"}</td>
                    <td>
                      <HealthBadge
                        status={status === "alive" ? "passing" : status === "left" ? "warning" : "critical"}
                        text={status}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
