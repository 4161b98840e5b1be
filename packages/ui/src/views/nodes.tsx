import { useMemo, useState } from "preact/hooks";
import { useBlocking } from "../api/hooks";
import { href, v1 } from "../api/paths";
import { AclNotice, ErrorBanner } from "../components/error-banner";
import { HealthBadge, HealthFilter } from "../components/health";
import { Loading, PagedList, SearchBox } from "../components/list";
import { matches } from "../lib/filter";
import { type Check, type Status, statusByNode } from "../lib/health";

export interface CatalogNode {
  Node: string;
  Address: string;
  Datacenter: string;
  TaggedAddresses: Record<string, string> | null;
  Meta: Record<string, string> | null;
}

/** Every node of the datacenter with its worst check status and addresses. */
export default function Nodes() {
  const nodes = useBlocking<CatalogNode[]>(v1("catalog/nodes"));
  const checks = useBlocking<Check[]>(v1("health/state/any"));
  const [search, setSearch] = useState("");
  const [health, setHealth] = useState("");
  const status = useMemo(() => statusByNode(checks.data ?? []), [checks.data]);
  const rows = (nodes.data ?? [])
    .map((n) => ({ node: n, status: (status.get(n.Node) ?? "passing") as Status }))
    .filter((r) => matches(search, [r.node.Node, r.node.Address]) && (health === "" || r.status === health));
  return (
    <section>
      <h1>Nodes</h1>
      <ErrorBanner error={nodes.error ?? checks.error} needs="node:read" />
      <AclNotice filtered={nodes.filtered || checks.filtered} />
      <div class="toolbar">
        <SearchBox label="Search nodes by name or address" value={search} onInput={setSearch} />
        <HealthFilter value={health} onChange={setHealth} />
      </div>
      {nodes.data === undefined ? (
        nodes.error ? null : (
          <Loading what="nodes" />
        )
      ) : (
        <PagedList
          label="Nodes"
          items={rows}
          keyOf={(r) => r.node.Node}
          empty={
            nodes.data.length === 0
              ? "No nodes registered, or none that your token may read (node:read)."
              : "No node matches."
          }
          render={(r) => (
            <>
              <a class="name" href={href("nodes", r.node.Node)}>
                {r.node.Node}
              </a>
              <HealthBadge status={r.status} />
              <span class="meta">{r.node.Address}</span>
            </>
          )}
        />
      )}
    </section>
  );
}
