// Entry point: read the configuration, start Chute, listen, and shut down cleanly on SIGINT/SIGTERM.
import { ConfigError, loadConfig } from './config.js';
import { createChute } from './server.js';

async function main(): Promise<void> {
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
