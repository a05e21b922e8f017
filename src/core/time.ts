/** Milliseconds in a day: every day counted here is 24 hours of UTC. */
export const DAY_MS = 86_400_000;
