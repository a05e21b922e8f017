import { describe, expect, it } from "vitest";
import { fixture } from "../../harness/loopback-registries.js";
import { parseWhoisCreationDate, parseWhoisDate } from "../../src/registry/whois-creation-date.js";

describe("parseWhoisDate", () => {
  it.each([
    ["2001-02-03T04:05:06Z", "2001-02-03T04:05:06.000Z"],
    ["2001-02-03T04:05:06.789Z", "2001-02-03T04:05:06.000Z"],
    ["2001-02-03T04:05:06+02:00", "2001-02-03T02:05:06.000Z"],
    ["2001-02-03T04:05:06-0500", "2001-02-03T09:05:06.000Z"],
    ["2001-02-03 04:05:06", "2001-02-03T04:05:06.000Z"],
    ["2001-02-03 04:05:06 UTC", "2001-02-03T04:05:06.000Z"],
    ["2001-02-03 04:05:06 CLST", "2001-02-03T04:05:06.000Z"],
    ["2001-02-03 04:05", "2001-02-03T04:05:00.000Z"],
    ["2001-02-03", "2001-02-03T00:00:00.000Z"],
    ["2001-2-3", "2001-02-03T00:00:00.000Z"],
    ["2001/02/03", "2001-02-03T00:00:00.000Z"],
    ["2001.02.03 13:14:15", "2001-02-03T13:14:15.000Z"],
    ["03-Feb-2001", "2001-02-03T00:00:00.000Z"],
    ["3-feb-2001", "2001-02-03T00:00:00.000Z"],
    ["03-FEB-2001 12:34:56 UTC", "2001-02-03T12:34:56.000Z"],
    ["03-February-2001", "2001-02-03T00:00:00.000Z"],
    ["03 Feb 2001", "2001-02-03T00:00:00.000Z"],
    ["3rd February 2001", "2001-02-03T00:00:00.000Z"],
    ["03.02.2001", "2001-02-03T00:00:00.000Z"],
    ["3.2.2001 12:00:00", "2001-02-03T12:00:00.000Z"],
    ["03-02-2001", "2001-02-03T00:00:00.000Z"],
    ["Sat Feb 3 2001", "2001-02-03T00:00:00.000Z"],
    ["February 3, 2001", "2001-02-03T00:00:00.000Z"],
    ["Sept 30 2001", "2001-09-30T00:00:00.000Z"],
    ["  2001-02-03  ", "2001-02-03T00:00:00.000Z"],
  ])("reads %j", (value, expected) => {
    expect(parseWhoisDate(value)?.toISOString()).toBe(expected);
  });

  it.each([
    [""],
    ["before 1996"],
    ["n/a"],
    ["2001-13-01"],
    ["2001-02-30"],
    ["31.02.2001"],
    ["2001-02-03T25:00:00Z"],
    ["02/03/2001"],
    ["1899-01-01"],
    ["03-Foo-2001"],
    ["2001-02/03"],
    ["20010203"],
  ])("refuses %j", (value) => {
    expect(parseWhoisDate(value)).toBeNull();
  });
});

describe("parseWhoisCreationDate", () => {
  it.each([
    ["Creation Date: 2001-02-03T04:05:06Z", "2001-02-03T04:05:06.000Z"],
    ["created: 2001-02-03", "2001-02-03T00:00:00.000Z"],
    ["Created On: 2001-02-03", "2001-02-03T00:00:00.000Z"],
    ["Registered on: 03-Feb-2001", "2001-02-03T00:00:00.000Z"],
    ["Registered On: 2001-02-03", "2001-02-03T00:00:00.000Z"],
    ["registered: 2001-02-03 12:00:00 +02:00", "2001-02-03T10:00:00.000Z"],
    ["Registration Time: 2003-03-17 12:20:05", "2003-03-17T12:20:05.000Z"],
    ["Domain Registration Date: Sat Feb 03 2001", "2001-02-03T00:00:00.000Z"],
    ["Domain Create Date: 03.02.2001", "2001-02-03T00:00:00.000Z"],
    ["Domain Name Commencement Date: 03-02-2001", "2001-02-03T00:00:00.000Z"],
    ["Creation date: 2001-02-03 12:00:00 CLST", "2001-02-03T12:00:00.000Z"],
    ["created_date: 2001/02/03", "2001-02-03T00:00:00.000Z"],
    ["created.............: 3.2.2001 12:00:00", "2001-02-03T12:00:00.000Z"],
    ["   Creation Date:    2001-02-03   ", "2001-02-03T00:00:00.000Z"],
    ["Creation Date: unknown\nCreated: 2002-03-04", "2002-03-04T00:00:00.000Z"],
    ["Registry Expiry Date: 2030-01-01\r\nCreation Date: 2001-02-03\r\n", "2001-02-03T00:00:00.000Z"],
  ])("reads %j", (text, expected) => {
    expect(parseWhoisCreationDate(text)?.toISOString()).toBe(expected);
  });

  it.each([
    ["Registry Expiry Date: 2030-01-01"],
    ["Registrar Registration Expiration Date: 2030-01-01"],
    ["Updated Date: 2026-01-01"],
    ['No match for domain "EXAMPLE.TEST".'],
    [""],
  ])("finds no creation date in %j", (text) => {
    expect(parseWhoisCreationDate(text)).toBeNull();
  });

  it.each([
    ["verisign-creation-date.txt", "1995-08-14T04:00:00.000Z"],
    ["identity-digital-io.txt", "2014-02-25T16:43:51.000Z"],
    ["nominet-registered-on.txt", "2001-02-03T00:00:00.000Z"],
    ["cnnic-registration-time.txt", "2003-03-17T12:20:05.000Z"],
    ["dns-pl-created.txt", "2001-02-03T13:14:15.000Z"],
    ["iis-se-created.txt", "2001-02-03T00:00:00.000Z"],
    ["nic-it-created.txt", "2001-02-03T00:00:00.000Z"],
    ["traficom-fi-dotted.txt", "2001-02-03T12:00:00.000Z"],
    ["tcinet-ru-created.txt", "2004-03-03T13:34:56.000Z"],
    ["label-on-next-line.txt", "2001-02-03T00:00:00.000Z"],
    ["denic-no-creation-date.txt", null],
  ])("reads the registry answer in fixtures/whois/%s", (file, expected) => {
    expect(parseWhoisCreationDate(fixture(`whois/${file}`))?.toISOString() ?? null).toBe(expected);
  });
});
