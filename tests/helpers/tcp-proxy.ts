// A TCP proxy on loopback between a client under test and its server (PostgreSQL, a replica, till itself), for
// tests of what the client does when the network misbehaves: the server goes away (`cut`), open connections die
// (`drop`), a connection is closed at a chosen moment (`fromClient`), or open connections carry nothing more
// (`freeze`, like a socket across a laptop's suspend).
import net from "node:net";

/** One client connection through the proxy, and its own connection to the target. */
export interface ProxiedLink {
  client: net.Socket;
  upstream: net.Socket;
  /** Closes both ends at once. */
  destroy(): void;
}

export interface TcpProxyOptions {
  /** Called with each chunk a client sends; false: not forwarded (the hook may have closed the link). */
  fromClient?: (chunk: Buffer, link: ProxiedLink) => boolean;
  /**
   * How a client learns that its target closed: "destroy" (at once, the default) or "end" (a clean close once
   * what the target sent was read, as a server that shuts down sends it).
   */
  targetClosed?: "destroy" | "end";
}

export class TcpProxy {
  /** The port the proxy listens on (kept across `cut` and `listen`). */
  port = 0;
  /** While true, a new connection is closed as soon as it is accepted, an open one when its client next sends. */
  refusing = false;
  readonly links = new Set<ProxiedLink>();
  private server: net.Server | undefined;

  constructor(
    private readonly target: { host?: string; port: number },
    private readonly options: TcpProxyOptions = {},
  ) {}

  /** Listens (again, on the same port after `cut`). */
  async listen(): Promise<void> {
    const server = net.createServer((client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** The server "goes away": connections refused, every open one closed. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    this.drop();
    await closed;
  }

  /** Closes every open connection; new ones are still accepted. */
  drop(): void {
    for (const link of this.links) link.destroy();
  }

  /** Open connections stay open and carry nothing more, either way (`cut` still closes them). */
  freeze(): void {
    for (const { client, upstream } of this.links) {
      for (const s of [client, upstream]) {
        s.removeAllListeners("data");
        s.pause();
      }
    }
  }

  private accept(client: net.Socket): void {
    if (this.refusing) return void client.destroy();
    const upstream = net.connect(this.target.port, this.target.host ?? "127.0.0.1");
    const link: ProxiedLink = {
      client,
      upstream,
      destroy: () => {
        client.destroy();
        upstream.destroy();
      },
    };
    this.links.add(link);
    const { fromClient, targetClosed = "destroy" } = this.options;
    client.on("data", (chunk: Buffer) => {
      if (this.refusing) return void link.destroy();
      if (!fromClient || fromClient(chunk, link)) upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => client.write(chunk));
    // an error is followed by "close", which decides
    client.on("error", () => {});
    upstream.on("error", () => {});
    client.on("close", () => {
      this.links.delete(link);
      upstream.destroy();
    });
    upstream.on("close", () => {
      this.links.delete(link);
      if (targetClosed === "end") client.end();
      else client.destroy();
    });
  }
}
