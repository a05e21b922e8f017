/** `npm start`: reads the configuration and runs the server until SIGTERM/SIGINT, as `mailrisk serve`. */
import { defaultWorkerCount, runCluster } from "./cluster.js";
import { ConfigError, loadConfig } from "./config.js";
import { StoreUnavailableError } from "./store/index.js";

try {
  process.exitCode = await runCluster(loadConfig(), { workers: defaultWorkerCount() });
} catch (error) {
  const message =
    error instanceof ConfigError
      ? `configuration error: ${error.message}`
      : error instanceof StoreUnavailableError
        ? `${error.detail} (DATABASE_URL sets the database)`
        : String(error);
  process.stderr.write(`mailrisk: ${message}\n`);
  // A configuration error is exit 2, as for every mailrisk command (docs/api.md, "Running it").
  process.exitCode = error instanceof ConfigError ? 2 : 1;
}
