import { describe, expect, it } from "vitest";
import { ConfigError, loadAgentConfig } from "../../src/index.js";

const env = { HOSTNAME: "test-host" };
const load = (hcl: string) => loadAgentConfig(["-dev", "-hcl", hcl], env);

function loadError(hcl: string): string {
  try {
    load(hcl);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected the configuration to be refused");
}

describe("unix_sockets and unix:// addresses", () => {
  it("reads mode as octal, user as a name or ID, group as an ID", () => {
    const { config, warnings } = load(
      'addresses { http = "unix:///run/cairn/http.sock" } unix_sockets { mode = "0660" user = "nobody" group = "100" }',
    );
    expect(config.addresses.http).toBe("unix:///run/cairn/http.sock");
    expect(config.unixSockets).toEqual({ mode: 0o660, user: "nobody", group: 100 });
    expect(warnings.filter((w) => w.includes("unix_sockets"))).toEqual([]);
    expect(load("").config.unixSockets).toEqual({ mode: undefined, user: undefined, group: undefined });
    // JSON and HCL numbers are read as the string Consul would see.
    expect(load("unix_sockets { mode = 700 }").config.unixSockets.mode).toBe(0o700);
  });

  it("refuses a mode that is not octal, a named group, a relative path and a DNS socket", () => {
    expect(loadError('unix_sockets { mode = "rw-------" }')).toMatch(
      /unix_sockets\.mode: invalid mode specified: "rw-------"/,
    );
    expect(loadError('unix_sockets { mode = "0800" }')).toMatch(/unix_sockets\.mode: invalid mode/);
    expect(loadError('unix_sockets { group = "wheel" }')).toMatch(
      /unix_sockets\.group: invalid group specified: "wheel"/,
    );
    expect(loadError('addresses { http = "unix://relative.sock" }')).toMatch(
      /addresses\.http: expected unix:\/\/\/absolute\/path/,
    );
    expect(loadError('addresses { dns = "unix:///tmp/dns.sock" }')).toMatch(
      /DNS address cannot be a unix socket/,
    );
  });

  it("lets client_addr name a socket when DNS listens elsewhere", () => {
    const { config } = load('client_addr = "127.0.0.1 unix:///tmp/c.sock" addresses { dns = "127.0.0.1" }');
    expect(config.addresses.http).toBe("127.0.0.1 unix:///tmp/c.sock");
  });
});
