// Entry point: read the configuration, start Chute, listen, and shut down cleanly on SIGINT/SIGTERM.
import { ConfigError, loadConfig } from './config.js';
import { createChute } from './server.js';

async function main(): Promise<void> {
  // Everything Chute creates in DATA_DIR (the database, uploads, temp files, the secret) is the service account's
  // alone: files 0600, folders 0700. The umask is only ever tightened, never loosened.
  process.umask(process.umask() | 0o077);
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const chute = await createChute(config);
  const shutdown = async (signal: string) => {
    chute.app.log.info({ signal }, 'shutting down');
    await chute.close();
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
