// Entry point: read the configuration, start Chute, listen, and shut down cleanly on SIGINT/SIGTERM.
import type { AddressInfo } from 'node:net';
import { ConfigError, environmentWithEnvFile, loadConfig, type Config } from './config.js';
import { createChute } from './server.js';
import { isFirstSetup } from './services/accounts/account.js';

/**
 * The one line for the person who ran `npm start`: where to open Chute, and whether the administrator is still to be
 * made. PUBLIC_URL when set; otherwise the address it listens on, `localhost` for all of them.
 */
export function readyLine(
  config: Pick<Config, 'PUBLIC_URL' | 'HOST'>,
  address: AddressInfo,
  firstSetup: boolean,
): string {
  let url = config.PUBLIC_URL?.replace(/\/+$/, '');
  if (!url) {
    const all = ['0.0.0.0', '::', '[::]', 'localhost', '127.0.0.1', '::1'].includes(config.HOST);
    const host = all ? 'localhost' : config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
    url = `http://${host}:${address.port}`;
  }
  return firstSetup ? `Chute is running at ${url} - open it to create the administrator` : `Chute is running at ${url}`;
}

async function main(): Promise<void> {
  // Everything Chute creates in DATA_DIR (the database, uploads, temp files, the secret) is the service account's
  // alone: files 0600, folders 0700. The umask is only ever tightened, never loosened.
  process.umask(process.umask() | 0o077);
  let config;
  try {
    config = loadConfig(environmentWithEnvFile());
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const chute = await createChute(config);
  // Stop accepting, let requests in progress finish within SHUTDOWN_TIMEOUT, cut the rest, exit 0.
  const shutdown = async (signal: string) => {
    chute.app.log.info({ signal, deadlineSeconds: config.SHUTDOWN_TIMEOUT }, 'shutting down');
    try {
      await chute.close();
    } catch (err) {
      chute.app.log.error({ err }, 'the shutdown failed');
      process.exit(1);
    }
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  await chute.app.listen({ port: config.PORT, host: config.HOST });
  // Besides the JSON log on standard output (which log collectors parse): one line in words, on standard error.
  const firstSetup = await isFirstSetup(chute.ctx).catch(() => false);
  process.stderr.write(`${readyLine(config, chute.app.server.address() as AddressInfo, firstSetup)}\n`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error && err.message.startsWith('Invalid configuration') ? err.message : err);
  process.exit(1);
});
