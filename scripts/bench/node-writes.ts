// What writing one answer to many held requests costs a bare node:http server, by how it is written: the
// evidence behind packages/api/src/http/wire.ts. Each variant is a fresh server holding `--held` requests
// (raw sockets, as the blocking-query bench holds them) that it answers all at once on /release; the time
// is from the release request to the last answer's first bytes. Variants take turns, `--rounds` times.
//
//   node --import tsx scripts/bench/node-writes.ts [--held 10000] [--rounds 3] [--variants two-bytes,...]
//
// two-bytes   `end("[]")`: the blocking-query bench's floor
// node-api    `writeHead(200, headers)` and `end(body)`: an API answer's headers and body through Node
// one-buffer  the same answer rendered once into one buffer, written to each socket, and the response then
//             ended with its head marked written (what wire.ts does)

import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { holdRequests } from "./lib/held-requests.js";
import { httpOk, keepAliveAgent } from "./lib/http-client.js";
import { median } from "./lib/median.js";

const { values } = parseArgs({
  options: {
    held: { type: "string", default: "10000" },
    rounds: { type: "string", default: "3" },
    variants: { type: "string", default: "two-bytes,node-api,one-buffer" },
  },
});

// A woken KV read's headers and body as Cairn sends them (index and leader headers under both names).
const SERVER = `
const held = [];
const variant = process.env.VARIANT;
const headers = {
  "X-Service-Index": "10012", "X-Consul-Index": "10012", "X-Service-KnownLeader": "true",
  "X-Consul-KnownLeader": "true", "X-Service-LastContact": "0", "X-Consul-LastContact": "0",
  "Content-Type": "application/json", "Vary": "Accept-Encoding",
};
const body = Buffer.from(JSON.stringify([{ LockIndex: 0, Key: "bench/watched", Flags: 0,
  Value: "dmFsdWUtb2YtdGhlLXdhdGNoZWQta2V5", CreateIndex: 3, ModifyIndex: 10012 }]));
let head = "HTTP/1.1 200 OK\\r\\n";
for (const [name, value] of Object.entries(headers)) head += name + ": " + value + "\\r\\n";
head += "Date: " + new Date().toUTCString() + "\\r\\nConnection: keep-alive\\r\\nKeep-Alive: timeout=5\\r\\n";
head += "Content-Length: " + body.length + "\\r\\n\\r\\n";
const rendered = Buffer.concat([Buffer.from(head, "latin1"), body]);
require("node:http")
  .createServer((req, res) => {
    if (req.url !== "/release") return void held.push(res);
    for (const r of held.splice(0)) {
      if (variant === "two-bytes") r.end("[]");
      else if (variant === "node-api") { r.writeHead(200, headers); r.end(body); }
      else { r.socket.write(rendered); r._header = "written"; r._headerSent = true; r.end(); }
    }
    res.end();
  })
  .listen(0, "127.0.0.1", function () { console.log("port " + this.address().port); });
`;

const count = Number(values.held);
const variants = values.variants.split(",");
const times = new Map<string, number[]>(variants.map((v) => [v, []]));

for (let round = 0; round < Number(values.rounds); round++) {
  for (const variant of variants) {
    const server = spawn(process.execPath, ["-e", SERVER], { env: { ...process.env, VARIANT: variant } });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        server.once("exit", () => reject(new Error(`the ${variant} server exited`)));
        server.stdout.on("data", (chunk: Buffer) => {
          const match = /port (\d+)/.exec(String(chunk));
          if (match) resolve(Number(match[1]));
        });
      });
      const target = { host: "127.0.0.1", port };
      const held = await holdRequests(target, "/v1/kv/bench/watched?index=2&wait=5m", count);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const control = keepAliveAgent(1);
      const t0 = performance.now();
      await httpOk(control, target, "GET", "/release");
      await held.settled(30_000);
      if (held.answeredAt.length !== count || held.notOk > 0)
        throw new Error(`${variant}: ${held.answeredAt.length} of ${count} answered, ${held.notOk} not 200`);
      times.get(variant)?.push(held.answeredAt[count - 1]! - t0);
      held.close();
      control.destroy();
    } finally {
      server.kill();
    }
  }
}

console.log(`| variant | ms to answer ${count} held requests, each round | median | median / two-bytes |`);
console.log("| --- | --- | ---: | ---: |");
const base = median(times.get("two-bytes") ?? []);
for (const [variant, ms] of times) {
  const m = median(ms);
  console.log(
    `| ${variant} | ${ms.map((x) => x.toFixed(0)).join(", ")} | ${m.toFixed(0)} | ${(m / base).toFixed(2)}× |`,
  );
}
