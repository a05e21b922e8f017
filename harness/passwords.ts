/**
 * Passwords for tests that only need an account to log in to: argon2id at the lowest
 * cost the algorithm takes (a verify of such a hash costs about a millisecond, not the
 * 125 ms of the service's OWASP parameters). A test of the stored hash's parameters
 * goes through the service, which always hashes with OWASP_ARGON2.
 */
import { hashPassword, type PasswordCost } from "../src/service/accounts/account-access.js";

export const TEST_PASSWORD_COST: PasswordCost = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

/** A stored password hash for a test's seeded account, at TEST_PASSWORD_COST. */
export function testPasswordHash(password: string): Promise<string> {
  return hashPassword(password, TEST_PASSWORD_COST);
}
