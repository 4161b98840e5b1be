import "../forms.css";
import type { ViewProps } from "../../router";
import { ResourceEditor } from "./edit";
import { ResourceList } from "./list";
import { LoginView } from "./login";
import { aclResource } from "./resources";

/**
 * `#/acl` logs in; `#/acl/<tokens|policies|roles|auth-methods>` lists, `/<id>` reads and edits, `?create`
 * creates (a query, so no ID or name, such as an auth method called "new", is taken by the route).
 */
export default function AclView({ params, query }: ViewProps) {
  const [slug = "", ...rest] = (params.rest ?? "").split("/");
  const id = rest.join("/");
  const resource = aclResource(slug);
  if (!resource) return <LoginView />;
  if (query.has("create")) return <ResourceEditor resource={resource} id={undefined} />;
  if (id === "") return <ResourceList resource={resource} />;
  return <ResourceEditor resource={resource} id={id} />;
}
