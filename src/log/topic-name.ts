/** Kafka's rule for topic names: 1–249 of [a-zA-Z0-9._-], and not "." or ".."; it also keeps names safe as directory names. */
export function topicNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'topic name is empty';
  if (name === '.' || name === '..') return `topic name '${name}' is not allowed`;
  if (name.length > 249) return 'topic name is longer than 249 characters';
  if (!/^[a-zA-Z0-9._-]+$/.test(name)) return `topic name '${name}' may hold only ASCII letters, digits, '.', '_' and '-'`;
  return undefined;
}
