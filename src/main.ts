// Entry point: read the configuration, start Chute, listen, and shut down cleanly on SIGINT/SIGTERM.
import { ConfigError, environmentWithEnvFile, loadConfig } from './config.js';
import { createChute } from './server.js';

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
}

main().catch((err: unknown) => {
  console.error(err instanceof Error && err.message.startsWith('Invalid configuration') ? err.message : err);
  process.exit(1);
});
