// `cairn config ...` end to end: HCL and JSON files against a real single-node API server.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cairn, cairnInProcess } from "./helpers/cairn.js";
import { startServer, type TestServer } from "./helpers/server.js";

let server: TestServer;
let dir: string;
const config = (...args: string[]) => cairnInProcess(["config", ...args], { env: server.env });

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

beforeAll(async () => {
  server = await startServer();
  dir = await mkdtemp(join(tmpdir(), "cairn-config-"));
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe("cairn config", () => {
  it("writes an HCL file (snake_case keys, blocks), reads it back as indented JSON, lists it", async () => {
    const defaults = await file(
      "web-defaults.hcl",
      `Kind = "service-defaults"
Name = "web"
protocol = "http"
mesh_gateway {
  mode = "local"
}
`,
    );
    expect(await config("write", defaults)).toMatchObject({
      code: 0,
      stdout: "Config entry written: service-defaults/web\n",
    });
    const resolver = await file(
      "web-resolver.hcl",
      `kind = "service-resolver"
name = "web"
default_subset = "v1"
connect_timeout = "15s"
subsets = {
  v1 = { filter = "Service.Meta.version == 1" }
  v2 = { filter = "Service.Meta.version == 2" }
}
`,
    );
    expect((await config("write", resolver)).stdout).toBe("Config entry written: service-resolver/web\n");
    const splitter = await file(
      "web-splitter.hcl",
      `Kind = "service-splitter"
Name = "web"
Splits = [
  { Weight = 90, ServiceSubset = "v1" },
  { Weight = 10, ServiceSubset = "v2" },
]
`,
    );
    expect((await config("write", splitter)).code).toBe(0);

    const read = await config("read", "-kind", "service-resolver", "-name", "web");
    expect(read.code).toBe(0);
    expect(read.stdout).toMatch(/^\{\n {4}"Kind": "service-resolver",\n {4}"Name": "web",\n/);
    expect(JSON.parse(read.stdout)).toMatchObject({
      DefaultSubset: "v1",
      ConnectTimeout: "15s",
      Subsets: { v1: { Filter: "Service.Meta.version == 1" } },
    });
    expect(
      JSON.parse((await config("read", "-kind", "service-defaults", "-name", "web")).stdout),
    ).toMatchObject({
      Protocol: "http",
      MeshGateway: { Mode: "local" },
    });
    await config(
      "write",
      await file("api.json", '{"Kind":"service-defaults","Name":"api","Protocol":"grpc"}'),
    );
    expect(await config("list", "-kind", "service-defaults")).toMatchObject({
      code: 0,
      stdout: "api\nweb\n",
    });
  });

  it("check-and-sets writes and deletes on the modify index", async () => {
    const path = await file("db.hcl", 'Kind = "service-defaults"\nName = "db"\nProtocol = "tcp"\n');
    expect((await config("write", "-cas", "-modify-index=0", path)).code).toBe(0);
    expect(await config("write", "-cas", "-modify-index=0", path)).toMatchObject({
      code: 1,
      stderr: "Config entry not updated: service-defaults/db\n",
    });
    const index = String(
      JSON.parse((await config("read", "-kind", "service-defaults", "-name", "db")).stdout).ModifyIndex,
    );
    expect(
      await config("delete", "-kind", "service-defaults", "-name", "db", "-cas", "-modify-index=1"),
    ).toMatchObject({
      code: 1,
      stderr: "Config entry not deleted: service-defaults/db\n",
    });
    expect(
      await config("delete", "-kind", "service-defaults", "-name", "db", "-cas", `-modify-index=${index}`),
    ).toMatchObject({
      code: 0,
      stdout: "Config entry deleted: service-defaults/db\n",
    });
    expect(await config("delete", "-kind", "service-defaults", "-name", "db")).toMatchObject({
      code: 0,
      stdout: "Config entry deleted: service-defaults/db\n",
    });
  });

  it("reports refusals as consul does, one line each", async () => {
    const bad = await file(
      "bad-split.hcl",
      'Kind = "service-splitter"\nName = "web"\nSplits = [{ Weight = 50, ServiceSubset = "v1" }]\n',
    );
    expect(await config("write", bad)).toMatchObject({
      code: 1,
      stderr:
        "Error writing config entry service-splitter/web: Unexpected response code: 400 (the sum of all split weights must be 100, not 50.000000)\n",
    });
    const unknownKind = await file("odd.hcl", 'Kind = "widget"\nName = "x"\n');
    expect((await config("write", unknownKind)).stderr).toBe(
      "Error writing config entry widget/x: Unexpected response code: 400 (Request decoding failed: invalid config entry kind: widget)\n",
    );
    expect(await config("write", await file("nokind.hcl", 'Name = "x"\n'))).toMatchObject({
      code: 1,
      stderr:
        "Failed to decode config entry input: Payload does not contain a kind/Kind key at the top level\n",
    });
    expect((await config("write", await file("broken.hcl", "Kind = \n"))).stderr).toMatch(
      /^Failed to decode config entry input: .+\n$/,
    );
    expect((await config("write", join(dir, "missing.hcl"))).stderr).toMatch(
      /^Failed to load data: Failed to read file: /,
    );
    expect((await config("write")).stderr).toBe(
      "Must provide exactly one positional argument to specify the config entry to write\n",
    );
    expect(await config("read", "-kind", "service-defaults", "-name", "nobody")).toMatchObject({
      code: 1,
      stderr:
        'Error reading config entry service-defaults/nobody: Unexpected response code: 404 (Config entry not found for "service-defaults" / "nobody")\n',
    });
    expect((await config("read", "-name", "x")).stderr).toBe("Must specify the -kind parameter\n");
    expect((await config("read", "-kind", "service-defaults")).stderr).toBe(
      "Must specify the -name parameter\n",
    );
    expect((await config("list")).stderr).toBe("Must specify the -kind parameter\n");
    expect((await config("delete", "-kind", "service-defaults")).stderr).toBe(
      "Must specify the -name parameter\n",
    );
    expect((await config("list", "-kind", "widget")).stderr).toBe(
      'Error listing config entries for kind "widget": Unexpected response code: 400 (invalid config entry kind: widget)\n',
    );
  });

  it("the real binary reads an entry from stdin", async () => {
    const r = await cairn(["config", "write", "-"], {
      env: server.env,
      stdin: 'Kind = "proxy-defaults"\nName = "global"\nConfig {\n  protocol = "http"\n}\n',
    });
    expect(r).toMatchObject({ code: 0, stdout: "Config entry written: proxy-defaults/global\n", stderr: "" });
    expect(
      JSON.parse((await config("read", "-kind", "proxy-defaults", "-name", "global")).stdout).Config,
    ).toEqual({
      protocol: "http",
    });
  });
});
