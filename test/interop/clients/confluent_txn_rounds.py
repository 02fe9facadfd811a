"""Transactions with librdkafka (confluent-kafka): a committed, an aborted and a last committed
transaction, then a read_committed consumer reads until the last. Prints the values it read, as JSON."""
import json
import sys

from confluent_kafka import Consumer, Producer, TopicPartition

bootstrap, topic, transactional_id = sys.argv[1], sys.argv[2], sys.argv[3]

producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id})
producer.init_transactions(30)
for value, commit in (("committed", True), ("aborted", False), ("last", True)):
    producer.begin_transaction()
    producer.produce(topic, value=value.encode(), partition=0)
    if commit:
        producer.commit_transaction(30)
    else:
        producer.abort_transaction(30)

consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False, "isolation.level": "read_committed"})
consumer.assign([TopicPartition(topic, 0, 0)])
read = []
while not read or read[-1] != "last":
    msg = consumer.poll(1.0)
    if msg is None or msg.error():
        continue
    read.append(msg.value().decode())
consumer.close()
print(json.dumps(read))
