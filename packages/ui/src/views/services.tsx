import { useMemo, useState } from "preact/hooks";
import { useBlocking } from "../api/hooks";
import { href, v1 } from "../api/paths";
import { AclNotice, ErrorBanner } from "../components/error-banner";
import { HealthCounts, HealthFilter } from "../components/health";
import { Loading, PagedList, SearchBox } from "../components/list";
import { matches } from "../lib/filter";
import { type Check, type Counts, countsByService, worstOf } from "../lib/health";

interface Row {
  name: string;
  tags: string[];
  counts: Counts;
}

const EMPTY = "No services registered, or none that your token may read (service:read).";

const NONE: Counts = { passing: 0, warning: 0, critical: 0 };

/** Every service of the datacenter with its check counts, searchable and filtered by health. */
export default function Services() {
  const services = useBlocking<Record<string, string[] | null>>(v1("catalog/services"));
  const checks = useBlocking<Check[]>(v1("health/state/any"));
  const [search, setSearch] = useState("");
  const [health, setHealth] = useState("");
  const rows = useMemo<Row[]>(() => {
    const counts = countsByService(checks.data ?? []);
    return Object.entries(services.data ?? {})
      .map(([name, tags]) => ({ name, tags: tags ?? [], counts: counts.get(name) ?? NONE }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }, [services.data, checks.data]);
  const shown = rows.filter(
    (r) => matches(search, [r.name, ...r.tags]) && (health === "" || worstOf(r.counts) === health),
  );
  return (
    <section>
      <h1>Services</h1>
      <ErrorBanner error={services.error ?? checks.error} needs="service:read" />
      <AclNotice filtered={services.filtered || checks.filtered} />
      <div class="toolbar">
        <SearchBox label="Search services by name or tag" value={search} onInput={setSearch} />
        <HealthFilter value={health} onChange={setHealth} />
      </div>
      {services.data === undefined ? (
        services.error ? null : (
          <Loading what="services" />
        )
      ) : (
        <PagedList
          label="Services"
          items={shown}
          keyOf={(r) => r.name}
          empty={rows.length === 0 ? EMPTY : "No service matches."}
          render={(r) => (
            <>
              <a class="name" href={href("services", r.name)}>
                {r.name}
              </a>
              <HealthCounts counts={r.counts} />
              <span class="meta">
                {r.tags.map((t) => (
                  <span class="tag" key={t}>
                    {t}
                  </span>
                ))}
              </span>
            </>
          )}
        />
      )}
    </section>
  );
}
