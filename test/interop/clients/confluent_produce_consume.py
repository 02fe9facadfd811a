"""Idempotent produce with librdkafka (confluent-kafka), then read everything back by assignment.
Prints one JSON object: what was acknowledged and what was read, per partition."""
import json
import sys

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from deliveries import Deliveries

bootstrap, topic, partitions, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])

admin = AdminClient({"bootstrap.servers": bootstrap})
futures = admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)])
futures[topic].result(15)

producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5})
deliveries = Deliveries()

for i in range(count):
    producer.produce(topic, value=f"m{i}".encode(), partition=i % partitions, on_delivery=deliveries.report)
    if i % 1000 == 0:
        producer.poll(0)
left = producer.flush(30)

consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False})
consumer.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
read = []
idle = 0
while len(read) < count and idle < 20:
    msg = consumer.poll(0.5)
    if msg is None:
        idle += 1
        continue
    if msg.error():
        deliveries.errors.append(str(msg.error()))
        continue
    read.append([msg.partition(), msg.offset(), msg.value().decode()])
consumer.close()
print(json.dumps({"unflushed": left, "errors": deliveries.errors, "acked": deliveries.acked, "read": read}))
