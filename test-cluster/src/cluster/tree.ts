// The source tree the servers run from. By default the working tree; `snapshotTree` instead extracts a
// committed revision into a temporary directory, so that a long run on a shared checkout is immune to
// edits made while it runs (a server restarted mid-run would otherwise load half-edited sources).

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * Extracts `revision`'s packages and root manifests from the repository at `repoRoot` into `dir`, with a
 * node_modules whose third-party entries link to the repository's and whose @cairn workspaces link to the
 * extracted packages. Returns `dir`.
 */
export function snapshotTree(repoRoot: string, revision: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const archive = execFileSync(
    "git",
    ["-C", repoRoot, "archive", "--format=tar", revision, "packages", "package.json", "tsconfig.base.json"],
    { maxBuffer: 1 << 30 },
  );
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  const modules = join(dir, "node_modules");
  mkdirSync(join(modules, "@cairn"), { recursive: true });
  for (const entry of readdirSync(join(repoRoot, "node_modules"))) {
    if (entry !== "@cairn") symlinkSync(join(repoRoot, "node_modules", entry), join(modules, entry));
  }
  for (const pkg of readdirSync(join(dir, "packages"))) {
    symlinkSync(join(dir, "packages", pkg), join(modules, "@cairn", pkg));
    const nested = join(repoRoot, "packages", pkg, "node_modules");
    if (existsSync(nested)) symlinkSync(nested, join(dir, "packages", pkg, "node_modules"));
  }
  return dir;
}

/** The commit `revision` names, for the run's record. */
export function resolveRevision(repoRoot: string, revision: string): string {
  return execFileSync("git", ["-C", repoRoot, "rev-parse", revision]).toString().trim();
}
