import { ACL_RESOURCES } from "./resources";

/** The ACL section's own navigation: log in, then each resource. */
export function AclTabs({ current }: { current: string }) {
  return (
    <nav class="tabs" aria-label="Access control">
      <a href="#/acl" aria-current={current === "" ? "page" : undefined}>
        Log in
      </a>
      {ACL_RESOURCES.map((r) => (
        <a key={r.slug} href={`#/acl/${r.slug}`} aria-current={current === r.slug ? "page" : undefined}>
          {r.title}
        </a>
      ))}
    </nav>
  );
}

/** Said instead of an error wherever an ACL endpoint answers `ACL support disabled`. */
export function AclsDisabled() {
  return (
    <div class="banner banner-info" role="status" data-testid="acls-disabled">
      <strong>ACLs are disabled on this cluster.</strong> Every request is allowed without a token, so there
      are no tokens, policies, roles or auth methods to manage. Enable them with{" "}
      <code>acl {"{ enabled = true }"}</code> in the agents' configuration.
    </div>
  );
}
