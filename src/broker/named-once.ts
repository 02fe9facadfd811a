/**
 * Kafka answers a topic named more than once in one admin request (CreateTopics,
 * CreatePartitions, DeleteTopics) once, with INVALID_REQUEST, and carries out none of its entries.
 */

/**
 * Each entry's answer in request order: `carryOut` for a name given once, `refuse` once for a
 * name given more often, in the place of its first entry.
 */
export async function answerEachNamedOnce<T, R>(entries: readonly T[], nameOf: (entry: T) => string, carryOut: (entry: T) => Promise<R>, refuse: (entry: T) => R): Promise<R[]> {
  const times = new Map<string, number>();
  for (const entry of entries) times.set(nameOf(entry), (times.get(nameOf(entry)) ?? 0) + 1);
  const answers: R[] = [];
  for (const entry of entries) {
    const count = times.get(nameOf(entry));
    if (count === 1) answers.push(await carryOut(entry));
    else if (count !== undefined) answers.push(refuse(entry));
    times.delete(nameOf(entry));
  }
  return answers;
}
