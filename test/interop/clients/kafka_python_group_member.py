"""A consumer group member on kafka-python. Prints JSON lines: each assignment and each message
read. When stdin closes it commits what it read, leaves the group and exits."""
import sys

from kafka import ConsumerRebalanceListener, KafkaConsumer, TopicPartition
from kafka.structs import OffsetAndMetadata

from lines import say, stdin_closed

bootstrap, topic, group = sys.argv[1], sys.argv[2], sys.argv[3]
stop = stdin_closed()


class Announce(ConsumerRebalanceListener):
    def on_partitions_revoked(self, revoked):
        pass

    def on_partitions_assigned(self, assigned):
        say({"assigned": sorted(tp.partition for tp in assigned)})


consumer = KafkaConsumer(
    bootstrap_servers=bootstrap,
    group_id=group,
    enable_auto_commit=False,
    auto_offset_reset="earliest",
    heartbeat_interval_ms=300,
    session_timeout_ms=6000,
)
consumer.subscribe([topic], listener=Announce())
read = 0
# The next offset of each partition read, committed by name: a rebalance under way when stdin closes
# (the other member leaving) may already have taken the assignment a bare commit() would use.
next_offsets = {}
while not stop.is_set():
    for messages in consumer.poll(timeout_ms=100).values():
        for m in messages:
            read += 1
            next_offsets[m.partition] = m.offset + 1
            say({"read": [m.partition, m.offset, m.value.decode()]})
if next_offsets:
    consumer.commit({TopicPartition(topic, p): OffsetAndMetadata(o, None) for p, o in next_offsets.items()})
consumer.close()
say({"done": read})
