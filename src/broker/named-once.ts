/**
 * Kafka's `ControllerApis` (`createTopics`, `createPartitions`, `deleteTopics`) answers a topic named
 * more than once in one admin request (CreateTopics, CreatePartitions, DeleteTopics) once, with INVALID_REQUEST, and carries out none of its entries.
 */

/**
 * Each entry's answer in request order: `carryOut` for a name given once, `refuse` once for a
 * name given more often, in the place of its first entry. An entry `nameOf` finds no name for (a
 * malformed one) is not counted, and goes to `carryOut`, which answers it alone.
 */
export async function answerEachNamedOnce<T, R>(
  entries: readonly T[],
  nameOf: (entry: T) => string | undefined,
  carryOut: (entry: T) => Promise<R>,
  refuse: (entry: T) => R,
): Promise<R[]> {
  const times = new Map<string, number>();
  for (const name of entries.map(nameOf)) if (name !== undefined) times.set(name, (times.get(name) ?? 0) + 1);
  const answers: R[] = [];
  for (const entry of entries) {
    const name = nameOf(entry);
    const count = name === undefined ? 1 : times.get(name);
    if (count === 1) answers.push(await carryOut(entry));
    else if (count !== undefined) answers.push(refuse(entry));
    if (name !== undefined) times.delete(name);
  }
  return answers;
}
