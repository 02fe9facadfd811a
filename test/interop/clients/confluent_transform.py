"""A consume-transform-produce loop on librdkafka (confluent-kafka) with exactly-once: each batch
read (of at most `batch` records) is written transformed and its offsets committed in one
transaction. Every `abort_every`-th transaction is aborted on purpose, after its records are
delivered, and its input read again from the committed offsets. Prints a JSON line per
transaction ended; finishes when stdin closes."""
import sys

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

from lines import say, stdin_closed

bootstrap, source, sink, group, txn_id = sys.argv[1:6]
abort_every, batch = int(sys.argv[6]), int(sys.argv[7])
stop = stdin_closed()
consumer = Consumer({
    "bootstrap.servers": bootstrap,
    "group.id": group,
    "enable.auto.commit": False,
    "auto.offset.reset": "earliest",
    "isolation.level": "read_committed",
    "session.timeout.ms": 6000,
    "heartbeat.interval.ms": 300,
    "reconnect.backoff.max.ms": 500,
})
producer = Producer({
    "bootstrap.servers": bootstrap,
    "transactional.id": txn_id,
    "transaction.timeout.ms": 10000,
    "reconnect.backoff.max.ms": 500,
})
producer.init_transactions(60)
consumer.subscribe([source])
ended = 0
while not stop.is_set():
    msgs = [m for m in consumer.consume(batch, 0.2) if m.error() is None]
    if not msgs:
        continue
    producer.begin_transaction()
    for m in msgs:
        producer.produce(sink, key=m.key(), value=m.value().upper())
    offsets = consumer.position(consumer.assignment())
    ended += 1
    if ended % abort_every == 0:
        # Delivered first, so the aborted records are in the log for read_committed to leave out.
        producer.flush(60)
        producer.abort_transaction(60)
        # Read again what the aborted transaction held: from the offsets the group committed.
        for tp in consumer.committed(consumer.assignment(), 30):
            consumer.seek(TopicPartition(tp.topic, tp.partition, tp.offset if tp.offset >= 0 else 0))
        say({"aborted": len(msgs)})
        continue
    producer.send_offsets_to_transaction(offsets, consumer.consumer_group_metadata(), 60)
    producer.commit_transaction(60)
    say({"committed": len(msgs)})
consumer.close()
say({"done": ended})
