// Several Chute processes (the real entry point) behind a real load balancer (HAProxy from Debian, round robin, no
// stickiness), sharing one PostgreSQL database, one Redis and one storage, as admins run them: for the cluster test
// and bench/cluster.ts. Each instance has its own DATA_DIR and INSTANCE_ID; all share SECRET.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { killChuteProcess, startChuteProcess, type ChuteProcess } from './chute-process.js';

export interface Cluster {
  /** The load balancer's address. */
  url: string;
  instances: ChuteProcess[];
  /** INSTANCE_ID of each instance. */
  names: string[];
  /** The balancer's process id (for CPU accounting). */
  haproxyPid: number;
  /** kill -9 of one instance; HAProxy notices through its health checks. */
  kill(index: number): Promise<void>;
  close(): Promise<void>;
}

export interface ClusterOptions {
  /** How many instances. */
  count: number;
  databaseUrl: string;
  /** A folder of the caller's: instance data folders and the HAProxy configuration go in it. */
  root: string;
  /** Storage and other settings shared by every instance (UPLOADS_DIR, S3_*, REDIS_URL ...). */
  env: Record<string, string>;
}

/** A TCP port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * HAProxy, round robin: a connection refused by a dead instance is retried on another one (the request was never
 * sent, so even a POST is safe to retry); nothing else is retried. Every request opens its own connection to an
 * instance (http-server-close), so that no request is sent over an idle connection to an instance that died meanwhile;
 * health checks allow for a busy machine (5 s each, down after three failures).
 */
function haproxyConfig(port: number, backends: string[]): string {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout check 5s',
    '  timeout client 120s',
    '  timeout server 120s',
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure',
    '  option forwardfor',
    'frontend chute',
    `  bind 127.0.0.1:${port}`,
    '  default_backend instances',
    'backend instances',
    '  balance roundrobin',
    '  option http-server-close',
    '  http-reuse never',
    '  option httpchk GET /api/healthcheck',
    '  http-check expect status 200',
    '  default-server inter 500ms fall 3 rise 2',
    ...backends.map((address, i) => `  server chute${i + 1} ${address} check`),
    '',
  ].join('\n');
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const names = Array.from({ length: options.count }, (_, i) => `node${i + 1}`);
  const instances: ChuteProcess[] = [];
  let haproxy: ChildProcess | undefined;
  const close = async () => {
    if (haproxy && haproxy.exitCode === null && haproxy.signalCode === null) {
      const exited = new Promise((resolve) => haproxy!.once('exit', resolve));
      haproxy.kill('SIGTERM');
      await exited;
    }
    await Promise.all(
      instances.map(async (instance) => {
        if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
        instance.child.kill('SIGTERM');
        const stopped = await Promise.race([
          instance.exited.then(() => true),
          new Promise((resolve) => setTimeout(() => resolve(false), 30_000)),
        ]);
        if (!stopped) await killChuteProcess(instance);
      }),
    );
  };
  try {
    for (const name of names) {
      const dataDir = path.join(options.root, name);
      await mkdir(dataDir, { recursive: true });
      instances.push(
        await startChuteProcess({
          dataDir,
          databaseUrl: options.databaseUrl,
          env: {
            INSTANCE_ID: name,
            SECRET: 'one secret shared by every instance of the cluster',
            TRUST_PROXY: '127.0.0.1',
            ...options.env,
          },
        }),
      );
    }
    const port = await freePort();
    const config = path.join(options.root, 'haproxy.cfg');
    await writeFile(
      config,
      haproxyConfig(
        port,
        instances.map((i) => new URL(i.url).host),
      ),
    );
    haproxy = spawn('haproxy', ['-db', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let haproxyLog = '';
    haproxy.stderr!.on('data', (chunk: Buffer) => (haproxyLog += chunk.toString('utf8')));
    const url = `http://127.0.0.1:${port}`;
    // Ready when the balancer has answered for each instance in turn (round robin), twice.
    let answered = 0;
    for (let attempt = 0; answered < options.count * 2; attempt++) {
      if (attempt > 400) throw new Error(`HAProxy did not come up: ${haproxyLog}`);
      if (haproxy.exitCode !== null) throw new Error(`HAProxy exited: ${haproxyLog}`);
      try {
        const res = await fetch(`${url}/api/healthcheck`);
        await res.arrayBuffer();
        answered = res.status === 200 ? answered + 1 : 0;
      } catch {
        answered = 0;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    return {
      url,
      instances,
      names,
      haproxyPid: haproxy.pid!,
      async kill(index) {
        await killChuteProcess(instances[index]);
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
