import { useBlocking } from "../api/hooks";
import { href, v1 } from "../api/paths";
import { CheckList } from "../components/checks";
import { ErrorBanner } from "../components/error-banner";
import { HealthBadge } from "../components/health";
import { Loading, Pairs } from "../components/list";
import { type Check, worst } from "../lib/health";
import type { ViewProps } from "../router";

interface Instance {
  Node: { Node: string; Address: string; Datacenter?: string };
  Service: {
    ID: string;
    Service: string;
    Tags: string[] | null;
    Address: string;
    Port: number;
    Meta: Record<string, string> | null;
  };
  Checks: Check[];
}

/** One service's instances, each with its node, address, port, meta and checks with their outputs. */
export default function Service({ params }: ViewProps) {
  const name = params.name ?? "";
  const live = useBlocking<Instance[]>(v1("health/service", name));
  return (
    <section>
      <p>
        <a href="#/services">Services</a> /
      </p>
      <h1>{name}</h1>
      <ErrorBanner error={live.error} needs="service:read" />
      {live.data === undefined ? (
        live.error ? null : (
          <Loading what="instances" />
        )
      ) : live.data.length === 0 ? (
        <p class="empty">No instances of this service are registered.</p>
      ) : (
        <>
          <h2>Instances ({live.data.length})</h2>
          {live.data.map((i) => (
            <InstanceCard key={`${i.Node.Node}/${i.Service.ID}`} instance={i} />
          ))}
        </>
      )}
    </section>
  );
}

function InstanceCard({ instance }: { instance: Instance }) {
  const { Node, Service: svc, Checks } = instance;
  const address = svc.Address || Node.Address;
  return (
    <article class="card" aria-label={`Instance ${svc.ID} on ${Node.Node}`}>
      <h3>
        {svc.ID} <HealthBadge status={worst(Checks.map((c) => c.Status))} />
      </h3>
      <Pairs
        label="Instance"
        pairs={{
          Node: Node.Node,
          Address: svc.Port ? `${address}:${svc.Port}` : address,
          ...(svc.Tags && svc.Tags.length > 0 ? { Tags: svc.Tags.join(", ") } : {}),
        }}
      />
      <p>
        <a href={href("nodes", Node.Node)}>Node {Node.Node}</a>
      </p>
      {svc.Meta && Object.keys(svc.Meta).length > 0 ? (
        <>
          <h4>Meta</h4>
          <Pairs label="Meta" pairs={svc.Meta} />
        </>
      ) : null}
      <h4>Checks</h4>
      <CheckList checks={Checks} />
    </article>
  );
}
