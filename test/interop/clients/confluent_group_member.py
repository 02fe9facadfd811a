"""A consumer group member on librdkafka (confluent-kafka). Prints JSON lines: each assignment and
each message read. When stdin closes it commits what it read, leaves the group and exits."""
import sys

from confluent_kafka import Consumer, TopicPartition

from lines import say, stdin_closed

bootstrap, topic, group = sys.argv[1], sys.argv[2], sys.argv[3]
# Optional: a session long enough to outlast broker restarts, and reconnecting soon after one.
session_ms = int(sys.argv[4]) if len(sys.argv) > 4 else 6000
stop = stdin_closed()
consumer = Consumer({
    "bootstrap.servers": bootstrap,
    "group.id": group,
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
    "heartbeat.interval.ms": 300,
    "session.timeout.ms": session_ms,
    "reconnect.backoff.max.ms": 500,
})
consumer.subscribe([topic], on_assign=lambda _c, parts: say({"assigned": sorted(p.partition for p in parts)}))
read = 0
# The next offset of each partition read, committed by name: a rebalance under way when stdin closes
# (the other member leaving) may already have taken the assignment a bare commit() would use.
next_offsets = {}
while not stop.is_set():
    msg = consumer.poll(0.1)
    if msg is None:
        continue
    if msg.error():
        say({"error": str(msg.error())})
        continue
    read += 1
    next_offsets[msg.partition()] = msg.offset() + 1
    say({"read": [msg.partition(), msg.offset(), msg.value().decode()]})
if next_offsets:
    consumer.commit(offsets=[TopicPartition(topic, p, o) for p, o in next_offsets.items()], asynchronous=False)
consumer.close()
say({"done": read})
