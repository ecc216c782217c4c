import net from "node:net";

// Ports handed to tests come from below Linux's ephemeral range (32768–60999 by default). A port from listen(0) is
// itself ephemeral: between our check and the service binding it, any outgoing connection on the machine (a browser,
// a NATS client, another test file) can take it as its local port. Nothing takes a port from below that range unless
// it asks for it by number, so only a concurrent test picking the same random number can collide, and the check
// below makes even that rare.
const LOW = 20_000;
const HIGH = 32_700;
const handedOut = new Set<number>();

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once("error", () => resolve(false));
    // 0.0.0.0: the edge binds every interface, which fails if any address already holds the port.
    srv.listen({ port, host: "0.0.0.0", exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (handedOut.has(port)) continue;
    if (await bindable(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${LOW} and ${HIGH}`);
}
