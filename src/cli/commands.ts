/**
 * The CLI's commands, written once as plain data: each one's forms, from which
 * `mailrisk help` (src/cli/main.ts) and the CLI table of docs/api.md ("Running it")
 * (`npm run docs:tables`) are made. The runner (src/cli/run-cli.ts) loads their modules.
 */

/** One form of a command: a line of `mailrisk help` and a row of the docs table. */
export interface CommandForm {
  /** Its arguments after the command's name (may be empty). */
  args: string;
  /** What it does, in one line, for `mailrisk help`. */
  summary: string;
  /** What it does in full, for the docs (Markdown; `§` refers to docs/api.md). */
  details: string;
  /** Its exit codes, for the docs. */
  exitCodes: string;
}

/** A command: its name and its forms. */
export interface Command {
  name: string;
  forms: readonly CommandForm[];
  /** It may create a new SQLite database (serve, migrate); every other command refuses to (src/cli/context.ts). */
  createsDatabase?: boolean;
}

/** How a form is written after `mailrisk`. */
export function commandUsage(name: string, form: CommandForm): string {
  return form.args === "" ? name : `${name} ${form.args}`;
}

/** Every command, in the order help and the docs list them. */
const TABLE = [
  {
    name: "serve",
    createsDatabase: true,
    forms: [
      {
        args: "[--workers N]",
        summary: "start the HTTP server on HOST:PORT in N processes (default: one per core but one)",
        details:
          "the HTTP server, as `npm start`, in N processes sharing HOST:PORT (1–256; default: one per core but one, `os.availableParallelism() - 1`, at least 1: the primary takes a core to accept and hand on every connection, so on 2 cores one process serves alone, [benchmarks.md](benchmarks.md#workers-npm-run-benchworkers); `--workers 1` runs in one process). The primary applies migrations and creates the first key once, then forks the workers and replaces one that dies (back-off 0.5 s doubling to 30 s); SIGTERM or SIGINT shuts every worker down gracefully and exits 0. Quotas stay exact across workers. `sqlite::memory:` always runs one process",
        exitCodes: "0, 1 start failed, 2 usage",
      },
    ],
  },
  {
    name: "check",
    forms: [
      {
        args: "<email-or-domain|->… [--json] [--only block|allow] [--concurrency N] [--progress]",
        summary: "check emails or domains; - reads one per line from stdin",
        details:
          "checks inputs (with `@` an email, else a domain); `-` reads one input per line from stdin (at most once; a blank line is an input, rejected with `missing_input`); `--` ends the options (for an input that starts with `-`). Inputs are checked as they arrive, concurrently (default 16, 1–1024); each result is written in input order as soon as it is ready, so memory stays flat on any length. Default output: a table (`input, valid, block, risk, reason, mx_host, provider`): fitted to its cells when the inputs are arguments; read from stdin, written row by row in fixed columns, a cell too wide cut with `…` (`--json` has every value whole). `--json`: one line per input (JSON Lines): `input` as given, then the full record, or for a bad input the §5 problem object (RFC 9457), and the run goes on. `--only block` keeps blocked and rejected inputs, `--only allow` the others. Progress (count, rate, ETA, block/allow/invalid tally) and a summary go to stderr when it is a terminal, or with `--progress`; otherwise stderr stays silent. A reader that goes away (`| head`) ends the run quietly with 0. Uses the server's configuration and record cache (database), and never answers a stale record ([cleaning.md](cleaning.md))",
        exitCodes: "0 all checked, 1 any rejected, 2 usage",
      },
      {
        args: "--csv [FILE|-] [--column NAME|NUMBER] [--delimiter C] [--encoding E] [--only block|allow] [--concurrency N] [--progress] [--raw]",
        summary: "clean a CSV: the same rows with result columns appended",
        details:
          "reads a CSV with a header row (RFC 4180; BOM, CRLF or LF) from FILE or stdin; the address column is `--column` (a header name, or a 1-based number), else the first header named `email`, `e-mail`, `email address`, `mail`, `mail address`, `user email`, `contact email`, `address` or `domain` (case, spaces, `-`, `_`, `.` ignored). The delimiter is `--delimiter` (one character, or `tab`), else sniffed from the first lines among `,` `;` tab `|` and named on stderr. The input is UTF-8 (UTF-16 with a BOM is read as such); `--encoding latin1`, `windows-1252` or `utf-16` reads another; UTF-8 that is not valid is refused with its line. Writes the same CSV in UTF-8 — every original cell as read, BOM and line ending kept, a cell quoted when it holds the delimiter, a quote, CR or LF — with the result columns `mr_valid`, `mr_block`, `mr_risk`, `mr_reason`, `mr_domain`, `mr_disposable`, `mr_role`, `mr_free`, `mr_typo`, `mr_mx_host`, `mr_provider` ([cleaning.md](cleaning.md)); a cell that is no address keeps its row and gets `mr_valid` false, `mr_block` true and `<code>: <detail>` in `mr_reason`; a row with more or fewer cells than the header is kept as many cells wide as the header (padded, or its extra cells joined in its last), not checked, and gets `wrong_cell_count: …` in `mr_reason`. A cell that would start a formula in a spreadsheet (`=`, `+`, `-`, `@`, tab, CR; not a plain number) is written with a `'` in front, unless `--raw`. A CSV wider than CSV_MAX_COLUMNS or with a record longer than CSV_MAX_RECORD_BYTES is refused whole, naming the line (exit 2). A CSV that cannot be read (not its encoding, a quote never closed) stops the run: a FILE is read through first, so nothing is written; stdin's output ends after whole rows. The other options as above",
        exitCodes: "0 all checked, 1 any row rejected, 2 usage or a CSV that cannot be read",
      },
    ],
  },
  {
    name: "keys",
    forms: [
      {
        args: "create --plan P [--name N] [--publishable --origin O…] [--json]",
        summary: "create an API key on plan P; its secret is shown once",
        details:
          'creates a key on plan P and prints its secret once (`mr_…`); with `--publishable` and one `--origin` per site (exact `scheme://host[:port]`, no wildcard) a publishable key (`mrp_…`) for browser pages of those origins only ([security.md](security.md#publishable-keys)); `--json`: the body of `POST /admin/keys`, `{"id","key","plan","prefix","name","created_at","publishable","origins"}`',
        exitCodes: "0, 1 unknown plan, 2 usage or invalid origins",
      },
      {
        args: "list [--json]",
        summary: "list keys, never their secrets",
        details:
          'lists keys, never secrets; `--json`: the body of `GET /admin/keys`, an array of `{"id","prefix","name","plan","created_at","revoked_at","publishable","origins"}`',
        exitCodes: "0, 2 usage",
      },
      {
        args: "show <id> [--json]",
        summary: "show a key with its plan and usage",
        details:
          "a key with its plan and usage: the current period (used, remaining, reset) and every stored period; reading counts nothing; `--json`: the body of `GET /admin/keys/{id}`",
        exitCodes: "0, 1 unknown key, 2 usage",
      },
      {
        args: "set-plan <id> <plan>",
        summary: "move a key to another plan",
        details: "moves a key to another plan (§6 plan changes)",
        exitCodes: "0, 1 unknown key or plan, 2 usage",
      },
      {
        args: "set-origins <id> <origin>…",
        summary: "replace a publishable key's origins",
        details:
          "replaces a publishable key's origins (at least one; a secret key has none); running servers take them within a second",
        exitCodes: "0, 1 unknown key, 2 usage or invalid origins",
      },
      {
        args: "revoke <id>",
        summary: "revoke a key for good",
        details: "revokes a key for good",
        exitCodes: "0, 1 unknown key, 2 usage",
      },
    ],
  },
  {
    name: "plans",
    forms: [
      {
        args: "create <name> --quota N|unlimited [--period-days D]",
        summary: "create a plan (D defaults to 30)",
        details:
          "creates a plan; D defaults to 30 (built in: `free`, 1,000 per 30 days; `unlimited`, no quota; §6)",
        exitCodes: "0, 1 exists, 2 usage or invalid",
      },
      {
        args: "update <name> [--quota N|unlimited] [--period-days D]",
        summary: "change a plan's quota or period",
        details: "changes a plan's quota or period",
        exitCodes: "0, 1 unknown plan, 2 usage or invalid",
      },
      {
        args: "list [--json]",
        summary: "list plans",
        details:
          'lists plans; `--json`: the body of `GET /admin/plans`, an array of `{"name","quota","period_days"}`',
        exitCodes: "0, 2 usage",
      },
      {
        args: "delete <name>",
        summary: "delete a plan that no key uses",
        details:
          "deletes a plan; refused while any key uses it, a revoked one included (move them first with `keys set-plan`)",
        exitCodes: "0, 1 unknown plan or keys use it, 2 usage",
      },
    ],
  },
  {
    name: "accounts",
    forms: [
      {
        args: "invite <email> [--plan P] [--operator] [--json]",
        summary: "print a one-time link where a person sets a password",
        details:
          'prints a one-time link `/invite/<token>`, valid 7 days, where the person sets a password and the account is made (plan P, default SIGNUP_PLAN; role `operator` with `--operator`, else `member`); mailed too when SMTP_URL is set ([accounts.md](accounts.md)); `--json`: the body of `POST /admin/accounts/invite`, `{"email","url","expires_at","mailed"}`',
        exitCodes: "0, 1 the account exists, the plan is unknown or SIGNUP is off, 2 usage or not an email",
      },
      {
        args: "list [--search S] [--json]",
        summary: "list accounts, newest first",
        details:
          'lists the newest accounts (at most 1,000), with `--search` those whose email contains S; `--json`: the body of `GET /admin/accounts`, an array of `{"id","email","role","plan","state","created_at"}`',
        exitCodes: "0, 2 usage",
      },
      {
        args: "show <account> [--json]",
        summary: "show an account (id or email) and its keys",
        details:
          "an account (by id or email) with its keys, how many entries its own list holds and whether two-factor is on; `--json`: the body of `GET /admin/accounts/{account}`, the account with `keys`, `list_entries` and `two_factor`",
        exitCodes: "0, 1 unknown account, 2 usage",
      },
      {
        args: "set-plan <account> <plan> [--json]",
        summary: "move an account and its keys to another plan",
        details:
          "moves an account (id or email) and its keys to a plan: they count against its quota at once, running servers within a second; `--json`: the body of `PATCH /admin/accounts/{account}`, the account",
        exitCodes: "0, 1 unknown account or plan, 2 usage",
      },
      {
        args: "suspend <account> [--json]",
        summary: "suspend an account: its keys answer 401, it cannot log in",
        details:
          "suspends an account: its keys answer 401 `account_suspended`, its sessions end, it cannot log in; running servers take it within a second; `--json`: the body of `POST /admin/accounts/{account}/suspend`",
        exitCodes: "0, 1 unknown account, 2 usage",
      },
      {
        args: "resume <account> [--json]",
        summary: "resume a suspended account",
        details:
          "makes a suspended account active again; `--json`: the body of `POST /admin/accounts/{account}/resume`",
        exitCodes: "0, 1 unknown account, 2 usage",
      },
      {
        args: "delete <account> [--json]",
        summary: "delete an account with its keys",
        details:
          "deletes an account with its keys, counts and sessions; `--json`: the body of `DELETE /admin/accounts/{account}`",
        exitCodes: "0, 1 unknown account, 2 usage",
      },
      {
        args: "reset-password <account> [--json]",
        summary: "print a one-time link where the account's owner sets a new password",
        details:
          "prints a one-time link, valid 7 days, where the owner sets a new password (every session ends); mailed too when SMTP_URL is set; `--json`: the body of `POST /admin/accounts/{account}/reset-password`",
        exitCodes: "0, 1 unknown account or SIGNUP is off, 2 usage",
      },
      {
        args: "reset-2fa <account> [--json]",
        summary: "turn off an account's two-factor log-in",
        details:
          "clears the account's two-factor secret and recovery codes (a person who lost the device and the codes): the next log-in asks for the password alone (audited `account.2fa_reset`; nothing is recorded when it was off); `--json`: the body of `POST /admin/accounts/{account}/reset-2fa`",
        exitCodes: "0, 1 unknown account, 2 usage",
      },
    ],
  },
  {
    name: "records",
    forms: [
      {
        args: "purge <domain>…",
        summary: "drop the domains' cached records; their next check is fresh",
        details:
          "deletes the domains' cached records (domains normalised as in §2); the next check of each is a fresh look-up; running servers forget what they remember of them within a second (§8)",
        exitCodes: "0, 2 usage or not a domain",
      },
      {
        args: "purge --all",
        summary: "drop every cached record",
        details: "deletes every cached record, as above",
        exitCodes: "0, 2 usage",
      },
    ],
  },
  {
    name: "lists",
    forms: [
      {
        args: "update [--json]",
        summary: "sync the upstream disposable lists of LIST_SOURCES now",
        details:
          "fetches every source of `LIST_SOURCES`, judges each entry (never a provider, a known-good, public-suffix or reserved name) and each new version as a whole (refused when it shrinks by more than 30 % against the version in force, or the bundled entries before a first sync, is empty, holds more than `LIST_MAX_ENTRIES` entries, is not text or JSON, over 50 MB, redirects to another host or takes over 30 s), and puts accepted versions in force; prints per source what was added, removed and refused, and why ([data.md](data.md#synced-lists)). Its `LIST_SOURCES` become the list policy every process decides with (with `off`: no synced source is in force; [data.md](data.md#who-sets-the-policy)). Running servers take an accepted version or a new policy within a second. One process syncs at a time (a lock in the database); `--json`: the body of `POST /admin/lists/update`",
        exitCodes:
          "0 every source fetched and judged, 1 a source failed (the others applied) or another process is syncing, 2 usage",
      },
      {
        args: "status [--json]",
        summary: "each synced source: URL, last attempt and success, entries, version, age, last error",
        details:
          "each source of `LIST_SOURCES` (and each of the list policy or with stored versions): its URL, last attempt and last success, the version in force (hash, entries, when accepted) and the one before it, the age of the data in force (since the source last confirmed it) and the last error; a source never synced runs on the bundled list. Then the list policy: the sources every process decides with ([data.md](data.md#who-sets-the-policy)); `--json`: the body of `GET /admin/lists`, with `in_policy` per source, null before a sync set the policy",
        exitCodes: "0, 2 usage",
      },
      {
        args: "rollback [<source>]",
        summary: "return a synced source (default: every one) to its previous version",
        details:
          "puts the previous accepted version of the source (of every source, without one) back in force, or, for a bundled source with none, its bundled entries; the version it replaces becomes the previous one, so a second rollback undoes the first. Running servers take it within a second",
        exitCodes: "0, 1 unknown source (never synced) or nothing to return to, 2 usage",
      },
      {
        args: "remove <source>",
        summary: "delete a source's stored versions",
        details:
          "deletes every stored version and attempt of the source (one dropped from `LIST_SOURCES`, say): a bundled source runs on its bundled entries again, another on none. Running servers take it within a second; `POST /admin/lists/remove` does the same",
        exitCodes: "0, 1 unknown source, 2 usage",
      },
    ],
  },
  {
    name: "overrides",
    forms: [
      {
        args: "add allow|deny <domain> [--note T]",
        summary: "allow or deny a domain, whatever the checks say",
        details:
          "the operator's correction of an answer: allows or denies a domain and its subdomains ([verdicts.md](verdicts.md)); verdicts are decided when answering, so the next answer of every running server takes it, within a second (§10)",
        exitCodes: "0, 2 usage",
      },
      {
        args: "add never-disposable mx-host|mx-ip|ns <value> [--note T]",
        summary: "mark mail infrastructure never disposable",
        details:
          "marks an MX host, MX address or name server never disposable: it is then neither learnt nor a curated hint ([verdicts.md](verdicts.md#learned-infrastructure-row-5)); the next answers take it, as above",
        exitCodes: "0, 2 usage",
      },
      {
        args: "remove <domain>|<kind> <value>",
        summary: "remove an override",
        details: "removes an override; the next answers take it, within a second",
        exitCodes: "0, 1 nothing to remove, 2 usage",
      },
      {
        args: "list [--json]",
        summary: "list the operator's overrides",
        details: "lists the operator's overrides (§10); `--json`: the body of `GET /admin/overrides`",
        exitCodes: "0, 2 usage",
      },
    ],
  },
  {
    name: "reports",
    forms: [
      {
        args: "list [--status open|accepted|rejected] [--limit N] [--json]",
        summary: "reports of wrong answers, each beside today's answer and its evidence",
        details:
          "the reports keys filed of answers they expected otherwise (§3.5), `open` by default: open ones first by how many distinct keys reported the same domain, then oldest first; accepted and rejected ones newest review first; at most `--limit` (1–1,000, default 100). Each with today's answer for its domain and the evidence behind it (§4.3). `--json`: the body of `GET /admin/reports`",
        exitCodes: "0, 2 usage",
      },
      {
        args: "accept <id> [--note T]",
        summary: "accept a report: set the allow or deny override it asks for",
        details:
          "sets the domain's `allow` (the report expected allow) or `deny` (expected block) override with the report's id and the note in the override's note, and closes the report and every open report of the domain expecting the same answer; running servers take the override within a second (§10)",
        exitCodes: "0, 1 unknown report or reviewed already, 2 usage",
      },
      {
        args: "reject <id> [--note T]",
        summary: "reject a report; the answer stays",
        details:
          "closes the report, and every open report of the domain expecting the same answer, as rejected; its key reads the status with `GET /v2/reports/{id}`",
        exitCodes: "0, 1 unknown report or reviewed already, 2 usage",
      },
    ],
  },
  {
    name: "infra",
    forms: [
      {
        args: "list [--all] [--json]",
        summary: "mail infrastructure learnt from traffic, with its evidence",
        details:
          "mail infrastructure learnt from traffic: each piece with enough listed disposable domains seen on it to be learnt (`--all`: at least one), with its counts of distinct domains by listed status, the service it names, examples and its state (`disposable`, `never disposable (operator)`, `has good domains` or `below thresholds`; [verdicts.md](verdicts.md#learned-infrastructure-row-5))",
        exitCodes: "0, 2 usage",
      },
    ],
  },
  {
    name: "webhooks",
    forms: [
      {
        args: "add <url> [--events domain.blocked,domain.unblocked] [--secret S] [--json]",
        summary: "send block status flips of watched domains to a URL",
        details:
          'subscribes an http(s) URL to flips of watched domains\' answered block status (default both events); without `--secret` a 32-byte secret is generated and shown once (a given one has at least 16 characters). Events are signed with it, retried for 24 h and never follow a redirect ([webhooks.md](webhooks.md)); `--json`: the body of `POST /admin/webhooks`, `{"id","url","events","created_at"}` with `"secret"` when generated',
        exitCodes: "0, 2 usage or invalid URL or events",
      },
      {
        args: "list [--json]",
        summary: "list webhooks, never their secrets",
        details:
          'lists webhooks, never secrets; `--json`: the body of `GET /admin/webhooks`, an array of `{"id","url","events","created_at"}`',
        exitCodes: "0, 2 usage",
      },
      {
        args: "remove <id>",
        summary: "remove a webhook with its events",
        details: "removes a webhook, its pending and past events and their attempts",
        exitCodes: "0, 1 unknown webhook, 2 usage",
      },
      {
        args: "deliveries [<id>] [--json]",
        summary: "the latest events with their attempts, status codes and next try",
        details:
          "the latest 100 events (of one webhook, or all), newest first: type, domain, status (`pending`, `delivered`, `failed`), each attempt's status code or error, and the next try; `--json`: the body of `GET /admin/webhooks/deliveries`",
        exitCodes: "0, 1 unknown webhook, 2 usage",
      },
    ],
  },
  {
    name: "audit",
    forms: [
      {
        args: "list [--actor A] [--action A] [--entity E] [--limit N] [--json]",
        summary: "the audit log: who changed what, newest first",
        details:
          "every change made through the CLI, the admin API or the console, newest first ([console.md](console.md#the-audit-log)): when, who (`cli`, `admin-token` or an account's email), the action (`key.revoke`, `override.set`, …), the entity and a detail that never holds a secret. `--actor`, `--action` (`key` is every `key.*`) and `--entity` (`<kind>` or `<kind>:<id>`) narrow it; at most `--limit` (1–1,000, default 100). `--json`: the body of `GET /admin/audit`",
        exitCodes: "0, 2 usage",
      },
    ],
  },
  {
    name: "jobs",
    forms: [
      {
        args: "list [--json]",
        summary: "every key's list jobs, newest first",
        details:
          'every key\'s list jobs (`POST /v2/jobs`), newest first: status, progress and counts ([jobs.md](jobs.md)); `--json`: the body of `GET /admin/jobs`, `{"jobs":[…]}`',
        exitCodes: "0, 2 usage",
      },
      {
        args: "show <id> [--json]",
        summary: "one list job's progress and counts",
        details: "one job as `GET /v2/jobs/<id>` answers it; `--json`: the body of `GET /admin/jobs/{id}`",
        exitCodes: "0, 1 unknown job, 2 usage",
      },
      {
        args: "cancel <id> [--json]",
        summary: "cancel a queued or running list job",
        details:
          "cancels a queued or running job; the units of its items not checked go back to its key (an ended job is shown as it is); `--json`: the body of `POST /admin/jobs/{id}/cancel`",
        exitCodes: "0, 1 unknown job, 2 usage",
      },
    ],
  },
  {
    name: "stats",
    forms: [
      {
        args: "[--json]",
        summary: "the traffic of the last 30 days: checks, blocks, providers, domains, accounts, keys",
        details:
          "the traffic of the last 30 UTC days from the daily counters every server adds to ([console.md](console.md#traffic)): checks per day by surface (`api`, `bulk`, `jobs`, `pages`), blocks per day by reason, the 20 disposable providers and the 20 domains blocked most, the 20 accounts and keys that used the most units (units given back by a cancelled job subtracted on the day given back). A running server writes its counts each second. `--json`: the body of `GET /admin/stats`",
        exitCodes: "0, 2 usage",
      },
    ],
  },
  {
    name: "demo",
    forms: [
      {
        args: "--key mrp_… [--port N] [--service URL]",
        summary: "serve a sign-up form with the widget on 127.0.0.1:N (default 8081)",
        details:
          "serves a plain sign-up form whose email field the widget (`GET /widget.js`) checks, on `http://127.0.0.1:N` (default 8081), until SIGINT or SIGTERM, to see the widget work ([clients.md](clients.md#the-demo)). `--service`: the service's base URL (default `http://127.0.0.1:<PORT>`); `--key`: a publishable key (`mrp_…`; a secret key is refused) that lists the demo's origin, made with `keys create --plan P --publishable --origin http://127.0.0.1:N`. At start it asks the service whether it takes the key from the demo's origin (one request without an input: 400, one unit counted): a refusal (`invalid_api_key`, `origin_not_allowed`, a used-up quota) stops it with its code and how to fix it; a service that does not answer is said, and the demo starts. Needs no database; keeps no address",
        exitCodes: "0 stopped, 1 the service refuses the key or cannot listen, 2 usage",
      },
    ],
  },
  {
    name: "migrate",
    createsDatabase: true,
    forms: [
      {
        args: "",
        summary: "apply pending database migrations",
        details: "applies pending database migrations (the server applies them on start too)",
        exitCodes: "0, 1 failed, 2 usage",
      },
    ],
  },
  {
    name: "rdap-bootstrap",
    forms: [
      {
        args: "update [--url URL] [--out FILE]",
        summary: "refresh the RDAP bootstrap from IANA",
        details:
          "downloads IANA's RDAP bootstrap (default `https://data.iana.org/rdap/dns.json`), checks its shape and writes it to `--out`, else `RDAP_BOOTSTRAP_FILE`, else `<STATE_DIR>/rdap-bootstrap.json` (never the bundled `data/rdap-bootstrap.json`). The service reads `RDAP_BOOTSTRAP_FILE`, else that state file when present, else the bundled one; restart the server to use it",
        exitCodes: "0, 1 download or shape failed, 2 usage",
      },
    ],
  },
] as const satisfies readonly Command[];

/** The name of a command of the table. */
export type CommandName = (typeof TABLE)[number]["name"];

type FirstWord<Args extends string> = Args extends `${infer Word} ${string}` ? Word : Args;
type PlainWord<Word extends string> = Word extends "" | `${"-" | "[" | "<"}${string}` ? never : Word;

/** The sub-commands of a command, as `subcommandOf` (src/cli/form-grammar.ts) reads them; never when it has none. */
export type SubcommandOf<Name extends CommandName> = PlainWord<
  FirstWord<Extract<(typeof TABLE)[number], { name: Name }>["forms"][number]["args"]>
>;

export const COMMANDS: readonly (Command & { name: CommandName })[] = TABLE;
