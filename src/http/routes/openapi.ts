/** `GET /openapi.json` — the OpenAPI 3.1 document generated from the route schemas. */
import type { TypedApp } from "../typed-app.js";

export function openapiRoute(app: TypedApp): void {
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
