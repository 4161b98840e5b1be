import { useBlocking, useFetch } from "../api/hooks";
import { href, v1 } from "../api/paths";
import { CheckList } from "../components/checks";
import { ErrorBanner } from "../components/error-banner";
import { HealthBadge } from "../components/health";
import { Loading, Pairs } from "../components/list";
import { type Coord, formatRtt, rttMs } from "../lib/coordinates";
import { type Check, worst } from "../lib/health";
import type { ViewProps } from "../router";
import type { CatalogNode } from "./nodes";

interface NodeServices {
  Node: CatalogNode;
  Services: Record<
    string,
    { ID: string; Service: string; Tags: string[] | null; Address: string; Port: number }
  >;
}

interface NodeCoord {
  Node: string;
  Segment?: string;
  Coord: Coord;
}

/** One node: addresses, meta, services, checks, and the round-trip estimate from the agent serving the UI. */
export default function NodeView({ params }: ViewProps) {
  const name = params.name ?? "";
  const node = useBlocking<NodeServices | null>(v1("catalog/node", name));
  const checks = useBlocking<Check[]>(v1("health/node", name));
  const coords = useBlocking<NodeCoord[] | null>(v1("coordinate/nodes"));
  const self = useFetch<{ Coord?: Coord; Config?: { NodeName?: string } }>(v1("agent/self"));
  const mine = self.data?.Coord;
  const theirs = coords.data?.find((c) => c.Node === name)?.Coord;
  const services = Object.values(node.data?.Services ?? {});
  return (
    <section>
      <p>
        <a href="#/nodes">Nodes</a> /
      </p>
      <h1>
        {name} {checks.data ? <HealthBadge status={worst(checks.data.map((c) => c.Status))} /> : null}
      </h1>
      <ErrorBanner error={node.error ?? checks.error} needs="node:read" />
      {node.data === undefined ? (
        node.error ? null : (
          <Loading what="the node" />
        )
      ) : node.data === null ? (
        <p class="empty">No such node in the catalog.</p>
      ) : (
        <>
          <Pairs
            label="Node"
            pairs={{
              Address: node.data.Node.Address,
              Datacenter: node.data.Node.Datacenter,
              ...(node.data.Node.TaggedAddresses ?? {}),
              "Round trip from this agent": formatRtt(rttMs(mine, theirs)),
            }}
          />
          {node.data.Node.Meta && Object.keys(node.data.Node.Meta).length > 0 ? (
            <>
              <h2>Meta</h2>
              <Pairs label="Node meta" pairs={node.data.Node.Meta} />
            </>
          ) : null}
          <h2>Services ({services.length})</h2>
          {services.length === 0 ? (
            <p class="empty">No services on this node.</p>
          ) : (
            <ul class="rows" aria-label="Services on this node">
              {services.map((s) => (
                <li class="row" key={s.ID}>
                  <a class="name" href={href("services", s.Service)}>
                    {s.Service}
                  </a>
                  <span class="meta">
                    {s.ID} · {s.Address || node.data!.Node.Address}
                    {s.Port ? `:${s.Port}` : ""}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      <h2>Checks</h2>
      {checks.data ? <CheckList checks={checks.data} /> : null}
    </section>
  );
}
