"""A compacted topic with librdkafka (confluent-kafka).
  produce BOOTSTRAP TOPIC KEYS ROUNDS: creates the topic compacted, with small segments, and writes
    each key ROUNDS times (key k0's last write a tombstone), idempotently; prints what was acknowledged.
  consume BOOTSTRAP TOPIC: reads the partition from the beginning; prints [offset, key, value] each.
"""
import json
import sys

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

mode, bootstrap, topic = sys.argv[1], sys.argv[2], sys.argv[3]

if mode == "produce":
    keys, rounds = int(sys.argv[4]), int(sys.argv[5])
    config = {"cleanup.policy": "compact", "segment.bytes": "1024", "min.cleanable.dirty.ratio": "0.01"}
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1, config=config)])
    futures[topic].result(15)
    producer = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 0})
    acked, errors = [], []

    def report(err, msg):
        if err is not None:
            errors.append(str(err))
        else:
            acked.append([msg.offset(), msg.key().decode(), None if msg.value() is None else msg.value().decode()])

    for r in range(rounds):
        for k in range(keys):
            tombstone = k == 0 and r == rounds - 1
            producer.produce(topic, key=f"k{k}".encode(), value=None if tombstone else f"k{k}@{r}".encode(), partition=0, on_delivery=report)
            producer.poll(0)
        producer.flush(30)  # a batch or so per round, so that segments roll
    print(json.dumps({"unflushed": producer.flush(30), "errors": errors, "acked": acked}))
else:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False, "enable.partition.eof": True})
    consumer.assign([TopicPartition(topic, 0, 0)])
    read, errors = [], []
    while True:
        msg = consumer.poll(5)
        if msg is None:
            errors.append("no end of partition in time")
            break
        if msg.error():
            if msg.error().code() == -191:  # _PARTITION_EOF
                break
            errors.append(str(msg.error()))
            continue
        read.append([msg.offset(), msg.key().decode(), None if msg.value() is None else msg.value().decode()])
    consumer.close()
    print(json.dumps({"errors": errors, "read": read}))
