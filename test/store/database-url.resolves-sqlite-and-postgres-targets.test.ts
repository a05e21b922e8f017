import { describe, expect, it } from "vitest";
import { parseDatabaseUrl } from "../../src/store/database-url.js";

describe("parseDatabaseUrl", () => {
  it.each([
    [null, { dialect: "sqlite", path: "/srv/app/data/mailrisk.db" }],
    ["sqlite:./x/y.db", { dialect: "sqlite", path: "/srv/app/x/y.db" }],
    ["sqlite:y.db", { dialect: "sqlite", path: "/srv/app/y.db" }],
    ["sqlite:/var/lib/mailrisk.db", { dialect: "sqlite", path: "/var/lib/mailrisk.db" }],
    ["sqlite::memory:", { dialect: "sqlite", path: ":memory:" }],
    ["postgres://u:p@db:5432/mr", { dialect: "postgres", connectionString: "postgres://u:p@db:5432/mr" }],
    ["postgresql://db/mr", { dialect: "postgres", connectionString: "postgresql://db/mr" }],
  ])("%s → %o", (url, location) => {
    expect(parseDatabaseUrl(url, "/srv/app")).toEqual(location);
  });

  it.each(["sqlite:", "mysql://db/mr", "mailrisk.db"])("refuses %s", (url) => {
    expect(() => parseDatabaseUrl(url, "/srv/app")).toThrow(/DATABASE_URL/);
  });
});
