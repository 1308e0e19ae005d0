/**
 * The life of a long-running command (controller, webhook): once started, it serves until SIGTERM or
 * SIGINT, then stops gracefully and exits 0, so Kubernetes' rolling updates see a clean exit.
 */
export async function serveUntilSignal(stop: () => Promise<void>, onSignal: (signal: string) => void): Promise<void> {
  await new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      onSignal(signal);
      void stop().then(resolve);
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
  process.exitCode = 0;
}
