import { describe, expect, it } from "vitest";
import { DatabaseUrlError, parseDatabaseUrl } from "../../src/store/database-url.js";

const DIRS = { cwd: "/srv/app", stateDir: "/srv/app/var" };

describe("parseDatabaseUrl", () => {
  it.each([
    [null, { dialect: "sqlite", path: "/srv/app/var/mailrisk.db", createDirectory: true }],
    ["sqlite:./x/y.db", { dialect: "sqlite", path: "/srv/app/x/y.db" }],
    ["sqlite:y.db", { dialect: "sqlite", path: "/srv/app/y.db" }],
    ["sqlite:/var/lib/mailrisk.db", { dialect: "sqlite", path: "/var/lib/mailrisk.db" }],
    ["sqlite::memory:", { dialect: "sqlite", path: ":memory:" }],
    ["postgres://u:p@db:5432/mr", { dialect: "postgres", connectionString: "postgres://u:p@db:5432/mr" }],
    ["postgresql://db/mr", { dialect: "postgres", connectionString: "postgresql://db/mr" }],
  ])("%s → %o", (url, location) => {
    expect(parseDatabaseUrl(url, DIRS)).toStrictEqual(location);
  });

  it("puts the default file in the state directory, relative ones against cwd", () => {
    expect(parseDatabaseUrl(null, { cwd: "/srv/app", stateDir: "state" })).toMatchObject({
      path: "/srv/app/state/mailrisk.db",
    });
    expect(parseDatabaseUrl(null, { cwd: "/srv/app", stateDir: "/data/mr" })).toMatchObject({
      path: "/data/mr/mailrisk.db",
    });
  });

  it.each(["sqlite:", "mysql://db/mr", "mailrisk.db"])("refuses %s", (url) => {
    expect(() => parseDatabaseUrl(url, DIRS)).toThrow(DatabaseUrlError);
    expect(() => parseDatabaseUrl(url, DIRS)).toThrow(/DATABASE_URL/);
  });

  it("does not echo a refused URL, which may hold a password", () => {
    expect(() => parseDatabaseUrl("postgress://u:secret@db/mr", DIRS)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining("secret") }),
    );
  });
});
