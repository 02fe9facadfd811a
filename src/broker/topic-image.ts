/** The topics as consumer groups see them: by name, each with its id and partition count. */
import type { TopicImage } from '../groups/consumer-group.js';
import type { Storage } from '../log/storage.js';

export function topicImage(storage: Storage): TopicImage {
  const topics = storage.topics();
  return {
    byName: new Map(topics.map((t) => [t.name, { topicId: t.topicId, partitions: t.partitions }])),
    key: topics.map((t) => `${t.topicId}:${t.partitions}`).join(','),
  };
}
