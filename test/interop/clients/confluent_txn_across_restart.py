"""A transaction open while the broker restarts: librdkafka's transactional producer writes `count`
records, says {"written": count}, and once the test closes stdin (the broker is back) writes
`count` more in the same transaction and commits it; says {"committed": 2 * count}."""
import sys

from confluent_kafka import Producer

from lines import say, stdin_closed

bootstrap, topic, transactional_id, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
producer = Producer({
    "bootstrap.servers": bootstrap,
    "transactional.id": transactional_id,
    "linger.ms": 5,
    "reconnect.backoff.ms": 10,
    "reconnect.backoff.max.ms": 100,
})
closed = stdin_closed()
producer.init_transactions(30)
producer.begin_transaction()


def write(start):
    for i in range(start, start + count):
        producer.produce(topic, value=f"r-{i:04d}".encode(), partition=i % 2)
    producer.flush(60)


write(0)
say({"written": count})
closed.wait()
write(count)
producer.commit_transaction(60)
say({"committed": 2 * count})
