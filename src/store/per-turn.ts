/**
 * What arrives in one turn of the event loop, handed over together at its end (one
 * `setImmediate`): the quota's counts (quota-batch.ts) and the records' saves
 * (records-save-batch.ts) are each written once a turn, not once a request.
 */
export function perTurn<T>(handOver: (items: T[]) => void): (item: T) => void {
  let waiting: T[] = [];
  const flush = () => {
    const items = waiting;
    waiting = [];
    handOver(items);
  };
  return (item) => {
    if (waiting.length === 0) setImmediate(flush);
    waiting.push(item);
  };
}
