"""kafka-python (no idempotence): create a topic with the admin client, plain produce, read back by assignment."""
import json
import sys

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient, NewTopic

bootstrap, topic, partitions, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

admin = KafkaAdminClient(bootstrap_servers=bootstrap)
admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)])
admin.close()

producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all")
futures = [producer.send(topic, value=f"m{i}".encode(), partition=i % partitions) for i in range(count)]
producer.flush()
acked = []
for f in futures:
    md = f.get(timeout=10)
    acked.append([md.partition, md.offset])
producer.close()

consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False, consumer_timeout_ms=3000)
consumer.assign([TopicPartition(topic, p) for p in range(partitions)])
consumer.seek_to_beginning()
read = [[m.partition, m.offset, m.value.decode()] for m in consumer]
consumer.close()
print(json.dumps({"acked": acked, "read": read}))
