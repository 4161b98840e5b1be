import { useBlocking } from "../../api/hooks";
import { ErrorBanner } from "../../components/error-banner";
import { Loading } from "../../components/list";
import { aclsDisabled } from "./acl-state";
import { type AclResource, cellText } from "./resources";
import { AclsDisabled, AclTabs } from "./tabs";

type AclRecord = Record<string, unknown>;

export function itemHref(resource: AclResource, id: string): string {
  return `#/acl/${resource.slug}/${encodeURIComponent(id)}`;
}

/** A resource's records (live), as a table whose first column opens each. */
export function ResourceList({ resource }: { resource: AclResource }) {
  const list = useBlocking<AclRecord[] | null>(resource.listPath);
  const rows = list.data ?? [];
  return (
    <section>
      <h1>{resource.title}</h1>
      <AclTabs current={resource.slug} />
      {aclsDisabled(list.error) ? (
        <AclsDisabled />
      ) : (
        <>
          <ErrorBanner error={list.error} needs={resource.readPrivilege} />
          <p>
            <a href={`#/acl/${resource.slug}?create`}>Create a {resource.singular}</a>
          </p>
          {list.data === undefined ? (
            list.error ? null : (
              <Loading what={resource.title.toLowerCase()} />
            )
          ) : rows.length === 0 ? (
            <p class="empty">No {resource.title.toLowerCase()}.</p>
          ) : (
            <div class="table-wrap">
              <table aria-label={resource.title}>
                <thead>
                  <tr>
                    {resource.columns.map((c) => (
                      <th key={c.field} scope="col">
                        {c.label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((r) => {
                    const id = String(r[resource.idField] ?? "");
                    return (
                      <tr key={id}>
                        {resource.columns.map((c, i) => (
                          <td key={c.field}>
                            {i === 0 ? (
                              <a href={itemHref(resource, id)}>
                                {cellText(resource, c.field, r[c.field]) || id}
                              </a>
                            ) : (
                              cellText(resource, c.field, r[c.field])
                            )}
                          </td>
                        ))}
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}
