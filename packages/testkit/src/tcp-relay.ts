import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay a test puts between processes and a server (PostgreSQL, Redis): while it is up it
 * forwards bytes both ways; `cut()` breaks every connection through it and refuses new ones
 * (each is reset as soon as it opens), as a network failure would, without stopping the server
 * other tests share. `restore()` lets connections through again.
 */
export interface TcpRelay {
  /** The relay's own port on 127.0.0.1: give processes this instead of the server's. */
  readonly port: number;
  /** Whether connections get through. */
  readonly up: boolean;
  /** Connections open through the relay now. */
  readonly open: number;
  /** Breaks every open connection, and every new one while cut. Returns how many it broke. */
  cut(): number;
  restore(): void;
  /**
   * `true`: what the server sends on any connection, open or new, is kept until the server closes
   * that connection, then written to the client in one write, as a client on a loaded machine
   * that reads late gets it: the server's last answer and its FATAL error (a backend PostgreSQL
   * terminated) in one read. `false`: what is kept goes out now, and bytes flow again.
   */
  holdReplies(hold: boolean): void;
  close(): Promise<void>;
}

/** Starts a relay on a free port of 127.0.0.1 to `target`. */
export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const pairs = new Set<readonly [Socket, Socket]>();
  /** The server's bytes each connection keeps while replies are held. */
  const held = new Map<Socket, Buffer[]>();
  let holding = false;
  let up = true;
  const server: Server = createServer((client) => {
    client.on('error', () => undefined);
    if (!up) {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection(target);
    upstream.on('error', () => undefined);
    const pair = [client, upstream] as const;
    pairs.add(pair);
    if (holding) held.set(client, []);
    const end = () => {
      pairs.delete(pair);
      held.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.pipe(upstream);
    // Not piped: while replies are held the server's bytes are kept instead of written.
    upstream.on('data', (chunk: Buffer) => {
      const kept = held.get(client);
      if (kept !== undefined) kept.push(chunk);
      else if (!client.write(chunk)) upstream.pause();
    });
    client.on('drain', () => upstream.resume());
    upstream.on('end', () => {
      const kept = held.get(client);
      held.delete(client);
      if (kept === undefined) client.end();
      else client.end(Buffer.concat(kept));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as { port: number }).port;
  const breakAll = () => {
    const broken = pairs.size;
    for (const [client, upstream] of pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    pairs.clear();
    return broken;
  };
  return {
    port,
    get up() {
      return up;
    },
    get open() {
      return pairs.size;
    },
    cut: () => {
      up = false;
      return breakAll();
    },
    restore: () => {
      up = true;
    },
    holdReplies: (hold) => {
      holding = hold;
      for (const [client] of pairs) {
        if (hold) {
          if (!held.has(client)) held.set(client, []);
          continue;
        }
        const kept = held.get(client);
        held.delete(client);
        if (kept !== undefined && kept.length > 0) client.write(Buffer.concat(kept));
      }
    },
    close: async () => {
      up = false;
      breakAll();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

/** A connection string with its host and port replaced by a relay's. */
export function throughRelay(connectionString: string, relay: Pick<TcpRelay, 'port'>): string {
  const url = new URL(connectionString);
  url.hostname = '127.0.0.1';
  url.port = String(relay.port);
  return url.toString();
}
