/** `npm start`: reads the configuration and runs the server until SIGTERM/SIGINT. */
import { ConfigError, loadConfig } from "./config.js";
import { runServer } from "./server.js";

try {
  process.exitCode = await runServer(loadConfig());
} catch (error) {
  const message = error instanceof ConfigError ? `configuration error: ${error.message}` : String(error);
  process.stderr.write(`mailrisk: ${message}\n`);
  process.exitCode = 1;
}
