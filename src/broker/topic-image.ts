/** The topics as consumer groups see them: by name, each with its id and partition count. */
import type { TopicImage } from '../groups/consumer-group.js';
import type { Storage } from '../log/storage.js';

export function topicImage(storage: Storage): TopicImage {
  return { byName: new Map(storage.topics().map((t) => [t.name, { topicId: t.topicId, partitions: t.partitions }])) };
}
